import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTaskFile } from '../../src/tasks/loader.js';
import { applyPatchCommand, DEMO_TASKS, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The capture freezes the agent's container (the engine's pause) before it reads the change. The
 * cgroup v1 freezer gives up ("unable to freeze") while a process of the cgroup waits on the disk:
 * a loop of `dd ... conv=fsync` in the background does that every time, and so does a loaded host's
 * disk now and then to any process. A freeze that fails made the submit INFRA_ERROR: a sample masked
 * on demand, and an honest one masked at random on a busy machine. The episode is over when it is
 * captured, so its processes are ended and the freeze asked again.
 */
let t: TestServer;
const { tasks } = await loadTaskFile(DEMO_TASKS);
const task = tasks.find((x) => x.id === 'swe-env-demo__minicalc-1')!;
const docker = new Docker();
/** The freezer that gives up while a task waits on the disk (runc's v1 freezer); a v2 freezer waits. */
const freezerGivesUp = ((await docker.info()) as { CgroupVersion?: string }).CgroupVersion === '1';

/** Four writers that each flush 64 MiB to disk, over and over, started apart from the shell. */
const DISK_WRITERS =
  'for i in 1 2 3 4; do setsid nohup bash -c "while :; do dd if=/dev/zero of=/tmp/w$i bs=1M count=64 conv=fsync 2>/dev/null; done" >/dev/null 2>&1 & done; sleep 2; pgrep -c -x dd';

beforeAll(async () => {
  t = await startTestServer();
});

afterAll(async () => {
  await t?.stop();
  expect(await t.server.provider.listContainers()).toEqual([]);
});

/** Asks the engine to pause the episode's container a few times; how many of the asks it refused. */
async function refusedPauses(episodeId: string): Promise<string[]> {
  const [id] = await t.server.provider.listContainers({ episodeId });
  const container = docker.getContainer(id!);
  const refused: string[] = [];
  for (let i = 0; i < 3; i++) {
    try {
      await container.pause();
      await container.unpause();
    } catch (error) {
      refused.push(String(error));
    }
  }
  return refused;
}

describe('a submit while processes of the sandbox wait on the disk', () => {
  it('the fix scores 1, not INFRA_ERROR, though the engine cannot freeze the sandbox as it is', async () => {
    const reset = await t.client.reset({ taskId: task.id });
    const id = reset.episodeId;
    try {
      expect((await t.client.bash(id, 0, applyPatchCommand(task.goldPatch))).exitCode).toBe(0);
      const started = await t.client.bash(id, 1, DISK_WRITERS);
      expect(Number(started.observation.trim()), started.observation).toBeGreaterThanOrEqual(1);
      // The trick works where it runs: the engine's pause is refused while the writers flush.
      const refused = await refusedPauses(id);
      if (freezerGivesUp) expect(refused.join('\n')).toMatch(/unable to freeze/);
      const submitted = await t.client.submit(id, 2);
      expect(submitted.report?.error ?? '').toBe('');
      expect(submitted.status).toBe('STEP_STATUS_OK');
      expect(submitted.report!.infraError).toBe(false);
      expect(submitted.reward).toBe(1);
      expect(submitted.info?.fields?.['model_patch']?.stringValue ?? '').toContain('diff --git');
    } finally {
      await t.client.close(id).catch(() => undefined);
    }
  });

  it("a change that fixes nothing still scores 0 as the model's own result, with the writers running", async () => {
    const reset = await t.client.reset({ taskId: task.id });
    const id = reset.episodeId;
    try {
      expect((await t.client.bash(id, 0, `echo '# nothing' >> README.md; ${DISK_WRITERS}`)).exitCode).toBe(0);
      const submitted = await t.client.submit(id, 1);
      expect(submitted.status).toBe('STEP_STATUS_OK');
      expect(submitted.report!.infraError).toBe(false);
      expect(submitted.reward).toBe(0);
    } finally {
      await t.client.close(id).catch(() => undefined);
    }
  });
});
