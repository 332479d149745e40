import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTaskFile } from '../../src/tasks/loader.js';
import { applyPatchCommand, DEMO_TASKS, startTestServer, type TestServer, expectNoContainers } from '../helpers/server.js';

/**
 * Prewarm: sandboxes started ahead for a task, taken by its Resets (a replacement started while
 * the task is still wanted), indistinguishable from a cold start, within a budget, expiring.
 */
let t: TestServer;
const { tasks } = await loadTaskFile(DEMO_TASKS);
const task = tasks.find((x) => x.id === 'swe-env-demo__minicalc-1')!;

beforeAll(async () => {
  t = await startTestServer({ maxWarm: 3 });
});

afterAll(async () => {
  await t?.stop();
  await expectNoContainers(t.server.provider);
});

const warmNow = async () => (await t.client.getServerInfo()).warmSandboxes;

/** What an agent sees of the repository and the shell at the start. */
const LOOK =
  'pwd; git status --porcelain; git rev-parse HEAD; git log --oneline --all | wc -l; git stash list | wc -l; ls -a; echo "$HOME $SHELL"; ulimit -u';

describe('warm starts', () => {
  it('Prewarm readies sandboxes; a Reset takes one and a replacement starts; the episode looks like a cold one and resolves', async () => {
    const cold = await t.client.reset({ taskId: task.id });
    const coldLook = await t.client.bash(cold.episodeId, 0, LOOK);
    await t.client.close(cold.episodeId);

    const answer = await t.client.prewarm(task.id, 2);
    expect(answer.warm + answer.starting).toBe(2);
    await expect.poll(warmNow, { timeout: 60_000, interval: 200 }).toBe(2);
    const containersBefore = (await t.server.provider.listContainers()).length;

    const warm = await t.client.reset({ taskId: task.id });
    // Taken from the pool: no new container for the episode beyond the replacement.
    expect(t.server.registry.warm.stats.taken).toBe(1);
    const warmLook = await t.client.bash(warm.episodeId, 0, LOOK);
    expect(warmLook.observation).toBe(coldLook.observation);
    await expect.poll(warmNow, { timeout: 60_000, interval: 200 }).toBe(2); // the replacement
    expect((await t.server.provider.listContainers()).length).toBe(containersBefore + 1);

    await t.client.bash(warm.episodeId, 1, applyPatchCommand(task.goldPatch));
    expect((await t.client.submit(warm.episodeId, 2)).reward).toBe(1);
    await t.client.close(warm.episodeId);
  });

  it('keeps to its budget and says so', async () => {
    const other = tasks.find((x) => x.id === 'swe-env-demo__textkit-1')!;
    const answer = await t.client.prewarm(other.id, 5);
    expect(answer.warm + answer.starting).toBeLessThanOrEqual(1); // 3 at most, 2 held by minicalc
    expect(answer.message).toMatch(/warm budget/);
    await expect.poll(warmNow, { timeout: 60_000, interval: 200 }).toBe(3);
  });

  it('a warm sandbox nobody takes expires and its container is removed', async () => {
    const short = await startTestServer({ maxWarm: 2, warmTtlS: 2, sweepIntervalS: 1 });
    try {
      await short.client.prewarm(task.id, 1);
      // Warm for about the 2 s it lives: wait on the count of sandboxes made warm, which stays.
      await expect.poll(() => short.server.registry.warm.stats.warmed, { timeout: 60_000, interval: 100 }).toBeGreaterThanOrEqual(1);
      await expect.poll(async () => (await short.client.getServerInfo()).warmSandboxes, { timeout: 30_000, interval: 500 }).toBe(0);
      await expect.poll(() => short.server.provider.listContainers(), { timeout: 30_000 }).toEqual([]);
      expect(short.server.registry.warm.stats.expired).toBe(1);
    } finally {
      await short.stop();
    }
  });
});
