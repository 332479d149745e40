import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTaskFile } from '../../src/tasks/loader.js';
import { applyPatchCommand, DEMO_TASKS, startTestServer, type TestServer } from '../helpers/server.js';
import { stuckDisk } from '../helpers/stuck-disk.js';

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
  'for i in 1 2 3 4; do setsid nohup bash -c "while :; do dd if=/dev/zero of=/tmp/w$i bs=1M count=64 conv=fsync 2>/dev/null; done" >/dev/null 2>&1 & done; until pgrep -x dd >/dev/null; do sleep 0.1; done; sleep 2; pgrep -c -x dd';

beforeAll(async () => {
  t = await startTestServer();
});

afterAll(async () => {
  await t?.stop();
  expect(await t.server.provider.listContainers()).toEqual([]);
});

/**
 * Asks the engine to pause the episode's container until it refuses once (a pause that lands while
 * no writer waits on the disk succeeds; asked again and again, one lands while one does), at most
 * 100 times; the refusals, none when every pause took.
 */
async function refusedPauses(episodeId: string): Promise<string[]> {
  const [id] = await t.server.provider.listContainers({ episodeId });
  const container = docker.getContainer(id!);
  for (let i = 0; i < 100; i++) {
    try {
      await container.pause();
    } catch (error) {
      await container.unpause().catch(() => undefined);
      // The engine still holding the last pause (its unpause answered before the freezer thawed)
      // is not the refusal looked for: thawed, the next try starts from a running container.
      if (/already paused/.test(String(error))) continue;
      return [String(error)];
    }
    // A pause that took, thawed again. Only the pause's refusal is looked for: the unpause may
    // answer that nothing is paused (the freezer let go on its own), which refuses nothing.
    await container.unpause().catch(() => undefined);
  }
  return [];
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

  // A killed process can wait in the kernel for as long as the disk takes (reads queued by the
  // gigabyte through Linux AIO, test/fixtures/attacks/aio-unkillable-reads.c: the submit was
  // INFRA_ERROR after 77 s). A disk that stops answering writes holds one there for as long as the
  // test wants, without loading the host's disk.
  it('the fix scores 1, not INFRA_ERROR, though a killed process of the sandbox stays in the kernel and its /dev/ptmx is gone', async () => {
    const reset = await t.client.reset({ taskId: task.id });
    const id = reset.episodeId;
    const [containerId] = await t.server.provider.listContainers({ episodeId: id });
    const container = docker.getContainer(containerId!);
    const disk = await stuckDisk((await container.inspect()).State.Pid);
    try {
      expect((await t.client.bash(id, 0, applyPatchCommand(task.goldPatch))).exitCode).toBe(0);
      await disk.stall();
      const writer = `setsid nohup dd if=/dev/zero of=${disk.mountPoint}/f bs=1M count=4 oflag=direct >/dev/null 2>&1 &`;
      expect((await t.client.bash(id, 1, `${writer} sleep 1; echo started`)).observation).toContain('started');
      // The trick at work: the writer waits in the kernel and SIGKILL does not end it.
      const writers = async (): Promise<string[][]> =>
        ((await container.top({ ps_args: '-o pid,stat,args' })) as { Processes?: string[][] }).Processes?.filter((row) =>
          row[2]?.startsWith('dd '),
        ) ?? [];
      const stuck = async (): Promise<string[]> => (await writers()).map((row) => row[1]!.charAt(0));
      await until(async () => (await stuck()).join() === 'D');
      const ddPid = (await writers())[0]![0];
      process.kill(Number(ddPid), 'SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(await stuck()).toEqual(['D']);
      if (freezerGivesUp) expect((await refusedPauses(id)).join('\n')).toMatch(/unable to freeze/);
      // And what a witnessed kill needs of the sandbox, taken away: the witness waits on a new
      // terminal of /dev/ptmx, and without one it ends at once (the submit was INFRA_ERROR after 60 s).
      expect((await t.client.bash(id, 2, 'rm -f /dev/ptmx && test ! -e /dev/ptmx && echo gone')).observation).toContain('gone');
      const submitted = await t.client.submit(id, 3);
      expect(submitted.report?.error ?? '').toBe('');
      expect(submitted.status).toBe('STEP_STATUS_OK');
      expect(submitted.report!.infraError).toBe(false);
      expect(submitted.reward).toBe(1);
    } finally {
      await disk.release();
      await t.client.close(id).catch(() => undefined);
      await disk.dispose();
    }
  }, 180_000);
});

async function until(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('the awaited state never came');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
