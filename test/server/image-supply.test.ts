import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { status, type ServiceError } from '@grpc/grpc-js';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerConfigInput } from '../../src/server/config.js';
import { startRegistry, stopAllRegistries, type LocalRegistry } from '../helpers/local-registry.js';
import { imagePresent, removeImages } from '../helpers/registry-images.js';
import { expectNoContainers, startTestServer, type TestServer } from '../helpers/server.js';
import {
  manifestGets,
  prefetch,
  pushTaskImage,
  sample,
  scrape,
  viaHost,
  writeRegistryConfig,
  writeTaskFile,
} from '../helpers/task-images.js';
import { callWithServerDeadline } from '../helpers/server-deadline-call.js';
import { startThrottlingProxy, type ThrottlingProxy } from '../helpers/throttling-proxy.js';

/**
 * Issue 19 through the real engine, real gRPC and a real registry (htpasswd auth): Resets of tasks
 * whose image is only in the registry. Single-flight pulls, credentials, backoff on 429, a Reset
 * whose deadline passes during a pull, and Prefetch.
 */
const docker = new Docker();
const auth = { user: 'trainer', password: 'correct horse' };
const made = new Set<string>();
const servers: TestServer[] = [];
const dir = mkdtempSync(join(tmpdir(), 'swe-env-image-supply-'));
let registry: LocalRegistry;
let proxy: ThrottlingProxy;
let goodConfig: string;
/** Task id -> image, per part. */
const images: Record<string, string> = {};

async function serve(tasks: Record<string, string>, supply: ServerConfigInput['images'], name: string): Promise<TestServer> {
  const t = await startTestServer({ taskFiles: [writeTaskFile(dir, tasks, `${name}.jsonl`)], metricsPort: 0, images: supply });
  servers.push(t);
  return t;
}

beforeAll(async () => {
  registry = await startRegistry({ auth });
  proxy = await startThrottlingProxy(registry.host);
  goodConfig = writeRegistryConfig(dir, { [registry.host]: auth, [proxy.host]: auth });
  const push = (taskId: string, repo: string): Promise<string> => pushTaskImage(docker, registry, taskId, repo, made);
  images['single'] = await push('swe-env-demo__minicalc-1', 'single');
  images['creds'] = await push('swe-env-demo__textkit-1', 'creds');
  images['backoff'] = viaHost(await push('swe-env-demo__intervals-1', 'backoff'), proxy.host);
  images['forever'] = viaHost(await push('swe-env-demo__minicalc-2', 'forever'), proxy.host);
  images['deadline'] = viaHost(await push('swe-env-demo__textkit-2', 'deadline'), proxy.host);
  for (const i of [1, 2, 3]) images[`prefetch-${i}`] = viaHost(await push(`swe-env-demo__intervals-${i}`, `prefetch-${i}`), proxy.host);
  for (const [key, image] of Object.entries(images)) {
    made.add(image);
    expect(await imagePresent(docker, image), key).toBe(false);
  }
}, 180_000);

afterAll(async () => {
  for (const t of servers) await t.stop().catch(() => undefined);
  for (const t of servers) await expectNoContainers(t.server.provider).catch(() => undefined);
  await proxy?.stop();
  await removeImages(docker, made);
  await stopAllRegistries();
  rmSync(dir, { recursive: true, force: true });
});

function grpcError(error: unknown): ServiceError {
  expect(error).toHaveProperty('code');
  return error as ServiceError;
}

describe('task images pulled from a registry by the server', () => {
  it('16 concurrent Resets of one GRPO group pull the missing image once, and every episode starts', async () => {
    const t = await serve(
      { 'swe-env-demo__minicalc-1': images['single']! },
      { registryConfig: goodConfig, maxPulls: 1, pullBackoffS: 0.2 },
      'single',
    );
    const before = manifestGets(registry.requests(), images['single']!);
    const resets = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        t.client.reset({ taskId: 'swe-env-demo__minicalc-1', episodeId: `single-${i}`, groupId: 'grpo-single' }),
      ),
    );
    expect(resets.map((r) => r.episodeId).sort()).toEqual(Array.from({ length: 16 }, (_, i) => `single-${i}`).sort());
    // Each episode runs in the pulled image, at the task's repository.
    const looks = await Promise.all(
      resets.map((r) => t.client.bash(r.episodeId, 0, 'test -f /opt/swe-env-test-payload && git rev-parse --is-inside-work-tree')),
    );
    expect(looks.map((l) => l.observation.trim())).toEqual(Array(16).fill('true'));
    await expect.poll(() => manifestGets(registry.requests(), images['single']!) - before, { timeout: 30_000 }).toBe(1);
    const metrics = await scrape(t.server.metricsPort);
    expect(sample(metrics, 'swe_env_image_pulls_total', 'outcome="pulled"')).toBe(1);
    expect(sample(metrics, 'swe_env_image_pulls_total', 'outcome="failed"')).toBe(0);
    await Promise.all(resets.map((r) => t.client.close(r.episodeId)));
  });

  it('a wrong password or no credentials fail the Reset at once as INFRA_ERROR naming the image, the registry and --registry-config', async () => {
    const wrong = writeRegistryConfig(dir, { [registry.host]: { ...auth, password: 'wrong' } }, 'wrong.json');
    const none = writeRegistryConfig(dir, {}, 'none.json');
    for (const [name, registryConfig] of [
      ['wrong', wrong],
      ['none', none],
    ] as const) {
      const t = await serve(
        { 'swe-env-demo__textkit-1': images['creds']! },
        { registryConfig, pullRetries: 5, pullBackoffS: 5 },
        `creds-${name}`,
      );
      // The deadline is far: an auth refusal must not be retried (with 5 s backoffs) until it.
      const error = grpcError(
        await t.client.reset({ taskId: 'swe-env-demo__textkit-1', episodeId: `creds-${name}` }, { timeoutS: 60 }).catch((e: unknown) => e),
      );
      expect(error.code, error.details).toBe(status.INTERNAL); // InfraError's status
      expect(error.details).toContain(images['creds']);
      expect(error.details).toContain(registry.host);
      expect(error.details).toContain('--registry-config');
      expect(error.details).toMatch(/after 1 try/);
      expect(await imagePresent(docker, images['creds']!)).toBe(false);
      const metrics = await scrape(t.server.metricsPort);
      expect(sample(metrics, 'swe_env_image_pulls_total', 'outcome="failed"')).toBe(1);
      expect(sample(metrics, 'swe_env_image_pull_retries_total', 'kind="retry"')).toBe(0);
    }
  });

  it('retries a registry answering 429 with backoff and the Reset succeeds; a registry that never stops ends in a clear error', async () => {
    const t = await serve(
      { 'swe-env-demo__intervals-1': images['backoff']!, 'swe-env-demo__minicalc-2': images['forever']! },
      { registryConfig: goodConfig, pullRetries: 5, pullBackoffS: 0.2 },
      'backoff',
    );
    proxy.resetCounts();
    proxy.throttle({ status: 429, times: 4, only: 'manifests' });
    const { episodeId } = await t.client.reset({ taskId: 'swe-env-demo__intervals-1', episodeId: 'backoff-1' });
    expect((await t.client.bash(episodeId, 0, 'cat /opt/swe-env-test-payload | wc -c')).observation.trim()).toBe(String(2 * 1024 * 1024));
    expect(proxy.count('manifests', 'throttled')).toBe(4);
    expect(proxy.count('manifests', 'forwarded')).toBeGreaterThanOrEqual(1);
    // A refused HEAD of the tag falls back to a GET, so a try failed exactly where a GET was refused.
    const failedTries = proxy.requests().filter((r) => r.throttled && r.method === 'GET').length;
    expect(failedTries).toBeGreaterThanOrEqual(1);
    const metrics = await scrape(t.server.metricsPort);
    expect(sample(metrics, 'swe_env_image_pull_retries_total', 'kind="retry"')).toBe(failedTries);
    expect(sample(metrics, 'swe_env_image_pulls_total', 'outcome="pulled"')).toBe(1);
    await t.client.close(episodeId);

    const forever = await serve(
      { 'swe-env-demo__minicalc-2': images['forever']! },
      { registryConfig: goodConfig, pullRetries: 2, pullBackoffS: 0.2 },
      'forever',
    );
    proxy.resetCounts();
    proxy.throttle({ status: 429, only: 'manifests' });
    try {
      const error = grpcError(
        await forever.client
          .reset({ taskId: 'swe-env-demo__minicalc-2', episodeId: 'forever-1' }, { timeoutS: 60 })
          .catch((e: unknown) => e),
      );
      expect(error.code, error.details).toBe(status.INTERNAL);
      expect(error.details).toContain(`cannot pull ${images['forever']} from ${proxy.host} after 3 tries`);
      expect(error.details).toMatch(/rate limit/);
      expect(proxy.count('manifests', 'forwarded')).toBe(0);
      const failed = await scrape(forever.server.metricsPort);
      expect(sample(failed, 'swe_env_image_pull_retries_total', 'kind="retry"')).toBe(2);
      expect(sample(failed, 'swe_env_image_pulls_total', 'outcome="failed"')).toBe(1);
    } finally {
      proxy.clear();
    }
  });

  it('a Reset whose deadline passes during the pull says the image is being pulled; its retry joins the same pull and succeeds', async () => {
    // The registry refuses every manifest request until the first Reset has its answer, so the pull
    // is still retrying when the deadline passes however long each step takes (a refused HEAD
    // falls back to a GET: refusals counted in advance ran out after three tries when the backoffs'
    // jitter was small); then it lets them through and the retried Reset joins the same pull.
    const t = await serve(
      { 'swe-env-demo__textkit-2': images['deadline']! },
      { registryConfig: goodConfig, pullRetries: 30, pullBackoffS: 1 },
      'deadline',
    );
    proxy.resetCounts();
    proxy.throttle({ status: 429, only: 'manifests' });
    try {
      const request = { taskId: 'swe-env-demo__textkit-2', episodeId: 'deadline-1' };
      // The deadline is the server's alone: its answer is what the test reads, however busy the loop.
      const error = await callWithServerDeadline(t.server.address, 'Reset', request, 5_000);
      expect(error.code, error.details).toBe(status.DEADLINE_EXCEEDED);
      expect(error.details).toContain(`the task's image ${images['deadline']} is not on this server yet (pulling`);
      expect(error.details).toContain('the pull goes on');
      proxy.clear();
      const retried = await t.client.reset(request, { timeoutS: 120 });
      expect(retried.episodeId).toBe('deadline-1');
      expect((await t.client.bash('deadline-1', 0, 'test -f /opt/swe-env-test-payload && echo pulled')).observation.trim()).toBe('pulled');
      // One pull: one manifest GET reached the registry, and the server counted one pull.
      expect(manifestGets(proxy.requests(), images['deadline']!)).toBe(1);
      expect(sample(await scrape(t.server.metricsPort), 'swe_env_image_pulls_total', 'outcome="pulled"')).toBe(1);
      await t.client.close('deadline-1');
    } finally {
      proxy.clear();
    }
  });

  it('Prefetch starts the pulls of missing images, lists unknown ids, and GetServerInfo lists each image once it is pulled', async () => {
    const tasks = {
      'swe-env-demo__intervals-1': images['prefetch-1']!,
      'swe-env-demo__intervals-2': images['prefetch-2']!,
      'swe-env-demo__intervals-3': images['prefetch-3']!,
    };
    const ids = Object.keys(tasks);
    // One pull at a time, and the registry refusing until told otherwise: the others must wait.
    const t = await serve(tasks, { registryConfig: goodConfig, maxPulls: 1, pullRetries: 30, pullBackoffS: 0.2 }, 'prefetch');
    expect((await t.client.getServerInfo()).images).toEqual([]);
    proxy.resetCounts();
    proxy.throttle({ status: 429, only: 'manifests' });
    try {
      const answer = await prefetch(t.client, [...ids, 'no-such-task', ids[0]!]);
      expect(answer.unknownTaskIds).toEqual(['no-such-task']);
      expect(answer.images.map((i) => [i.image, i.taskIds])).toEqual(ids.map((id) => [tasks[id as keyof typeof tasks], [id]]));
      for (const image of answer.images) expect(['IMAGE_PHASE_QUEUED', 'IMAGE_PHASE_PULLING']).toContain(image.phase);
      // One pulling (retrying the 429s), the other two queued behind it.
      await expect
        .poll(async () => {
          const supply = (await t.client.getServerInfo()).imageSupply!;
          return [supply.pullsRunning, supply.pullsQueued, supply.pulls.map((p) => p.phase).sort()];
        })
        .toEqual([1, 2, ['IMAGE_PHASE_PULLING', 'IMAGE_PHASE_QUEUED', 'IMAGE_PHASE_QUEUED']]);
      expect((await t.client.getServerInfo()).images).toEqual([]);
    } finally {
      proxy.clear();
    }
    await expect
      .poll(async () => (await prefetch(t.client, ids)).images.map((i) => i.phase), { timeout: 60_000, interval: 200 })
      .toEqual(['IMAGE_PHASE_PRESENT', 'IMAGE_PHASE_PRESENT', 'IMAGE_PHASE_PRESENT']);
    // Right away, not after the image list's 30 s cache.
    const info = await t.client.getServerInfo();
    expect(info.images).toEqual(Object.values(tasks).sort());
    expect(info.imageSupply!.pullsDone).toBe(3);
    expect(info.imageSupply!.pulls).toEqual([]);
    // One pull each (pullsDone above). A pull is HEAD by tag then GET by digest; when the throttle
    // ends between a try's HEAD (429) and the engine's fallback GET by tag, that try reads the
    // manifest by tag too: one or two GETs, never a second pull.
    for (const image of Object.values(tasks)) expect([1, 2]).toContain(manifestGets(proxy.requests(), image));
    // A prefetched image is there for the Reset: no pull.
    const { episodeId } = await t.client.reset({ taskId: ids[1]!, episodeId: 'prefetched-1' });
    expect((await t.client.getServerInfo()).imageSupply!.pullsDone).toBe(3);
    await t.client.close(episodeId);
  });
});
