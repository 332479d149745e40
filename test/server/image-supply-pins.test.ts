import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRegistry, stopAllRegistries, type LocalRegistry } from '../helpers/local-registry.js';
import { imagePresent, removeImages } from '../helpers/registry-images.js';
import { expectNoContainers, startTestServer, type TestServer } from '../helpers/server.js';
import { demoImage, prefetch, pushTaskImage, writeTaskFile } from '../helpers/task-images.js';

/**
 * A prefetched image is kept from eviction while its pin lasts, even when it is the least
 * recently used: the next batch's images are not thrown away by the current batch's pulls.
 * Through the real engine and a real registry; a budget that holds the shared base and about one
 * task image of its own.
 */
const docker = new Docker();
const made = new Set<string>();
const dir = mkdtempSync(join(tmpdir(), 'swe-env-image-pins-'));
const PAYLOAD_MB = 5;
const MB = 1024 * 1024;
const TASKS = ['swe-env-demo__minicalc-3', 'swe-env-demo__textkit-2', 'swe-env-demo__intervals-3'] as const;
let registry: LocalRegistry;
let t: TestServer | undefined;
const images: Record<string, string> = {};

beforeAll(async () => {
  registry = await startRegistry();
  for (const [i, taskId] of TASKS.entries()) images[taskId] = await pushTaskImage(docker, registry, taskId, `pins-${i}`, made, PAYLOAD_MB);
}, 180_000);

afterAll(async () => {
  await t?.stop().catch(() => undefined);
  if (t) await expectNoContainers(t.server.provider).catch(() => undefined);
  await removeImages(docker, made);
  await stopAllRegistries();
  rmSync(dir, { recursive: true, force: true });
});

async function untilPresent(taskIds: string[]): Promise<void> {
  for (;;) {
    const answer = await prefetch(t!.client, taskIds);
    expect(answer.images.filter((i) => i.phase === 'IMAGE_PHASE_FAILED')).toEqual([]);
    if (answer.images.every((i) => i.phase === 'IMAGE_PHASE_PRESENT')) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function resetAndClose(taskId: string, episodeId: string): Promise<void> {
  await t!.client.reset({ taskId, episodeId });
  await t!.client.close(episodeId);
}

describe('prefetch pins', () => {
  it('the cache evicts the unpinned image and keeps the prefetched one, least recently used as it is', async () => {
    const [first, second, third] = TASKS;
    const base = Math.max(...(await Promise.all(TASKS.map(async (id) => (await docker.getImage(demoImage(id)).inspect()).Size))));
    // Room for the base and 1.5 task images: the third pull must evict one of the other two.
    const budget = Math.round(base + 1.5 * PAYLOAD_MB * MB);
    t = await startTestServer({
      taskFiles: [writeTaskFile(dir, images, 'pins.jsonl')],
      images: { maxPulls: 1, cacheHighBytes: budget, cacheLowBytes: budget, prefetchPinS: 3600 },
    });
    await untilPresent([first]);
    expect((await t.client.getServerInfo()).imageSupply!.pinnedImages).toBeGreaterThanOrEqual(1);
    // Used after the prefetch: the prefetched image is now the least recently used.
    await resetAndClose(second, 'pins-second');
    await resetAndClose(third, 'pins-third');
    const supply = (await t.client.getServerInfo()).imageSupply!;
    expect(supply.evictions).toBeGreaterThanOrEqual(1);
    expect(await imagePresent(docker, images[first]!)).toBe(true);
    expect(await imagePresent(docker, images[second]!)).toBe(false);
    // Pins win over the budget: the prefetched image and the one just used (its container was there
    // when the pull's check ran) hold it above the budget by at most one image's own layer.
    expect(supply.cacheBytes).toBeLessThanOrEqual(budget + PAYLOAD_MB * MB);
    // And it still starts without a pull.
    const pullsBefore = supply.pullsDone;
    await resetAndClose(first, 'pins-first');
    expect((await t.client.getServerInfo()).imageSupply!.pullsDone).toBe(pullsBefore);
  });
});
