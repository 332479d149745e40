import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRegistry, stopAllRegistries, type LocalRegistry } from '../helpers/local-registry.js';
import { imagePresent, removeImages } from '../helpers/registry-images.js';
import { expectNoContainers, startTestServer, type TestServer } from '../helpers/server.js';
import { demoImage, manifestGets, pushTaskImage, sample, scrape, writeRegistryConfig, writeTaskFile } from '../helpers/task-images.js';

/**
 * The task-image cache under a GRPO-like churn through the real engine and a real registry: a
 * budget smaller than the task set, images in use by live episodes while others must go. And the
 * mirror rule: an image named for registry A pulled from registry B.
 */
const docker = new Docker();
const auth = { user: 'trainer', password: 'correct horse' };
const made = new Set<string>();
const servers: TestServer[] = [];
const dir = mkdtempSync(join(tmpdir(), 'swe-env-image-churn-'));
const MB = 1024 * 1024;
/** Each task image's own layer: 5 MB of random bytes on its demo image. */
const PAYLOAD_MB = 5;
const TASKS = [
  'swe-env-demo__minicalc-1',
  'swe-env-demo__textkit-1',
  'swe-env-demo__intervals-1',
  'swe-env-demo__minicalc-2',
  'swe-env-demo__textkit-2',
  'swe-env-demo__intervals-2',
];
let registry: LocalRegistry;
let config: string;
const images: Record<string, string> = {};

beforeAll(async () => {
  registry = await startRegistry({ auth });
  config = writeRegistryConfig(dir, { [registry.host]: auth });
  for (const [i, taskId] of TASKS.entries()) images[taskId] = await pushTaskImage(docker, registry, taskId, `churn-${i}`, made, PAYLOAD_MB);
  for (const image of Object.values(images)) expect(await imagePresent(docker, image)).toBe(false);
}, 180_000);

afterAll(async () => {
  for (const t of servers) await t.stop().catch(() => undefined);
  for (const t of servers) await expectNoContainers(t.server.provider).catch(() => undefined);
  await removeImages(docker, made);
  await stopAllRegistries();
  rmSync(dir, { recursive: true, force: true });
});

describe('the task-image cache under churn', () => {
  it('keeps a budget smaller than the task set: evicts unused images, never one in use, and pulls them again when needed', async () => {
    // The demo images stay (other tasks' images): their layers are the task images' shared base,
    // counted once. The budget holds that base and three task images' own layers, not six.
    const base = Math.max(...(await Promise.all(TASKS.map(async (id) => (await docker.getImage(demoImage(id)).inspect()).Size))));
    const high = Math.round(base + 3.2 * PAYLOAD_MB * MB);
    const low = Math.round(base + 1.6 * PAYLOAD_MB * MB);
    const t = await startTestServer({
      taskFiles: [writeTaskFile(dir, images, 'churn.jsonl')],
      metricsPort: 0,
      maxEpisodes: 16,
      images: { registryConfig: config, maxPulls: 1, pullBackoffS: 0.2, cacheHighBytes: high, cacheLowBytes: low },
    });
    servers.push(t);
    const polls: number[] = [];
    const poll = async (): Promise<void> => {
      const supply = (await t.client.getServerInfo()).imageSupply!;
      expect(supply.cacheHighBytes).toBe(high);
      polls.push(supply.cacheBytes);
      expect(supply.cacheBytes, `cache bytes at poll ${polls.length}`).toBeLessThanOrEqual(high);
    };
    const payload = String(PAYLOAD_MB * MB);
    let n = 0;
    /** A group of a task's episodes: Reset together, one bash step each that reads the image's own file. */
    const group = async (taskId: string, size: number): Promise<string[]> => {
      const groupId = `g${n++}`;
      const ids = Array.from({ length: size }, (_, i) => `${groupId}-${i}`);
      await Promise.all(ids.map((episodeId) => t.client.reset({ taskId, episodeId, groupId })));
      const looks = await Promise.all(ids.map((id) => t.client.bash(id, 0, 'wc -c < /opt/swe-env-test-payload')));
      for (const look of looks) expect([look.status, look.observation.trim()]).toEqual(['STEP_STATUS_OK', payload]);
      return ids;
    };

    await poll();
    for (let round = 0; round < 3; round++) {
      // A long-lived group holds its image in use while every other task comes and goes.
      const held = TASKS[(2 * round) % TASKS.length]!;
      const long = await group(held, 2);
      for (const [i, taskId] of TASKS.entries()) {
        if (taskId === held) continue;
        const ids = await group(taskId, 2 + (i % 3));
        if (i === 1) {
          const graded = await t.client.submit(ids[0]!, 1);
          expect(graded.status).toBe('STEP_STATUS_OK');
          expect(graded.reward).toBe(0);
        }
        await Promise.all(ids.map((id) => t.client.close(id)));
        await poll();
      }
      // The long-lived episodes' containers kept running through every eviction.
      for (const id of long) {
        const look = await t.client.bash(id, 1, 'wc -c < /opt/swe-env-test-payload');
        expect([look.status, look.observation.trim()]).toEqual(['STEP_STATUS_OK', payload]);
        await t.client.close(id);
      }
      await poll();
    }

    const supply = (await t.client.getServerInfo()).imageSupply!;
    const metrics = await scrape(t.server.metricsPort);
    const pulls = Object.fromEntries(TASKS.map((id) => [id, manifestGets(registry.requests(), images[id]!)]));
    console.info(
      `image cache churn: high ${high} B, cache bytes per poll ${polls.join(' ')}, evictions ${supply.evictions}, refused in use ${sample(metrics, 'swe_env_image_evictions_refused_in_use_total')}, pulls per task ${JSON.stringify(pulls)}`,
    );
    expect(supply.evictions).toBeGreaterThan(0);
    expect(sample(metrics, 'swe_env_image_evictions_total')).toBe(supply.evictions);
    // Evicted images were pulled again when their task came round again.
    expect(Object.values(pulls).every((p) => p >= 1)).toBe(true);
    expect(Object.values(pulls).some((p) => p >= 2)).toBe(true);
    expect(sample(metrics, 'swe_env_image_pulls_total', 'outcome="pulled"')).toBe(Object.values(pulls).reduce((a, b) => a + b, 0));
    expect(sample(metrics, 'swe_env_image_pulls_total', 'outcome="failed"')).toBe(0);
    // Measured with the shared base once: above it by less than three images' own layers.
    expect(Math.max(...polls)).toBeGreaterThan(base);
  });
});

describe('registry mirrors', () => {
  it('pulls an image named for registry A from its mirror B, and it lands under its own (A) name', async () => {
    const a = await startRegistry();
    const fromB = await pushTaskImage(docker, registry, 'swe-env-demo__textkit-3', 'mirrored', made);
    const named = `${a.host}${fromB.slice(fromB.indexOf('/'))}`;
    made.add(named);
    const t = await startTestServer({
      taskFiles: [writeTaskFile(dir, { 'swe-env-demo__textkit-3': named }, 'mirror.jsonl')],
      images: { registryConfig: config, registryMirrors: [`${a.host}=${registry.host}`] },
    });
    servers.push(t);
    const { episodeId } = await t.client.reset({ taskId: 'swe-env-demo__textkit-3', episodeId: 'mirrored-1' });
    expect((await t.client.bash(episodeId, 0, 'test -f /opt/swe-env-test-payload && echo mirrored')).observation.trim()).toBe('mirrored');
    await t.client.close(episodeId);
    expect(await imagePresent(docker, named)).toBe(true);
    expect(await imagePresent(docker, fromB)).toBe(false);
    expect(manifestGets(registry.requests(), fromB)).toBe(1);
    expect(a.requests().filter((r) => r.path.includes('/manifests/'))).toEqual([]);
  });
});
