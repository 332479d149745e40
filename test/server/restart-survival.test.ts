import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SweEnvClient } from '../../src/client/client.js';
import { DockerSandboxProvider } from '../../src/sandbox/docker-sandbox.js';
import { fold } from '../../src/server/persistence/episode-journal.js';
import { loadTrajectories } from '../../src/trajectories/export.js';
import { loadTaskFile } from '../../src/tasks/loader.js';
import { expectNoContainers, applyPatchCommand, DEMO_TASKS } from '../helpers/server.js';
import { killCliServers, serveCli, stopCli } from '../helpers/cli-server.js';

const TASK = 'swe-env-demo__textkit-1';
const { tasks } = await loadTaskFile(DEMO_TASKS);
const task = tasks.find((t) => t.id === TASK)!;
const providers: DockerSandboxProvider[] = [];
const stateDirs: string[] = [];

function serve(serverId: string, stateDir: string, extra: string[] = []): ReturnType<typeof serveCli> {
  return serveCli([
    '--server-id',
    serverId,
    '--state-dir',
    stateDir,
    '--trajectory-dir',
    join(stateDir, 'trajectories'),
    '--shutdown-grace',
    '5',
    ...extra,
  ]);
}

/** Whether a shell script exits 0 in the episode's container (an engine exec beside the agent's shell). */
async function succeedsIn(provider: DockerSandboxProvider, episodeId: string, script: string): Promise<boolean> {
  const [id] = await provider.listContainers({ episodeId });
  const exec = await provider.docker.getContainer(id!).exec({ Cmd: ['sh', '-c', script], AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({});
  stream.resume();
  await new Promise((resolve) => stream.on('end', resolve));
  return (await exec.inspect()).ExitCode === 0;
}

function setup(): { serverId: string; stateDir: string; provider: DockerSandboxProvider } {
  const serverId = `test-restart-${randomUUID().slice(0, 8)}`;
  const stateDir = mkdtempSync(join(tmpdir(), 'swe-env-state-'));
  const provider = new DockerSandboxProvider(serverId);
  providers.push(provider);
  stateDirs.push(stateDir);
  return { serverId, stateDir, provider };
}

function record(stateDir: string, serverId: string, episodeId: string): Record<string, unknown> | undefined {
  const file = join(stateDir, serverId, 'episodes', `${encodeURIComponent(episodeId)}.jsonl`);
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(fold(readFileSync(file, 'utf8'))) as Record<string, unknown>;
  } catch {
    return undefined; // between a snapshot's write and its rename
  }
}

afterAll(async () => {
  killCliServers();
  for (const p of providers) await p.removeServerContainers();
  for (const d of stateDirs) rmSync(d, { recursive: true, force: true });
});

describe('a server restarted with the same server id and state directory', () => {
  it('after SIGKILL: a retried Step returns its recorded result and the episode goes on in its container to reward 1; a container removed meanwhile is INFRA_ERROR saying the server restarted', async () => {
    const { serverId, stateDir, provider } = setup();
    const first = await serve(serverId, stateDir);
    const a = new SweEnvClient(first.address);
    const [kept, removed, closed] = ['kept', 'removed', 'closed'].map((n) => `${n}-${randomUUID().slice(0, 8)}`) as [
      string,
      string,
      string,
    ];
    for (const id of [kept, removed, closed]) await a.reset({ taskId: TASK, episodeId: id });
    const keptContainer = await provider.listContainers({ episodeId: kept });
    expect(keptContainer).toHaveLength(1);

    const before = await a.bash(kept, 0, 'mkdir -p /tmp/w && cd /tmp/w && echo one >> count && export FOO=bar && echo ran-once');
    expect(before.status).toBe('STEP_STATUS_OK');
    const closedSummary = (await a.close(closed)).summary!;
    const removedContainer = (await provider.listContainers({ episodeId: removed }))[0]!;
    a.dispose();

    await stopCli(first.child, 'SIGKILL');
    await provider.docker.getContainer(removedContainer).remove({ force: true });

    const second = await serve(serverId, stateDir);
    const b = new SweEnvClient(second.address);
    // The step whose answer the crash may have eaten: its recorded outcome, not a second run.
    const retried = await b.bash(kept, 0, 'mkdir -p /tmp/w && cd /tmp/w && echo one >> count && export FOO=bar && echo ran-once');
    expect(retried.observation).toBe(before.observation);
    expect(await provider.listContainers({ episodeId: kept })).toEqual(keptContainer);
    const next = await b.bash(kept, 1, 'wc -l < count; pwd; echo "FOO=${FOO:-unset}"');
    expect(next.status).toBe('STEP_STATUS_OK');
    expect(next.observation).toMatch(/^1\n\/tmp\/w\nFOO=unset\n/);
    expect(next.observation).toMatch(/server restarted.*new shell was started in \/tmp\/w/);
    await b.bash(kept, 2, `cd ${task.workdir} && ${applyPatchCommand(task.goldPatch)}`);
    const graded = await b.submit(kept, 3);
    expect(graded.reward).toBe(1);
    expect((await b.close(kept)).summary?.endReason).toBe('submitted');

    const gone = await b.bash(removed, 0, 'true');
    expect(gone.status).toBe('STEP_STATUS_INFRA_ERROR');
    expect(gone.observation).toMatch(/server restarted and the episode's container was gone/);
    expect((await b.close(removed)).summary?.endReason).toBe('infra_error');

    // Close stays idempotent across the restart.
    expect((await b.close(closed)).summary).toEqual(closedSummary);
    b.dispose();
    await stopCli(second.child, 'SIGTERM');
    await expectNoContainers(provider);

    // Each trajectory goes on in one file across the restart.
    const recorded = new Map((await loadTrajectories([join(stateDir, 'trajectories')])).map((t) => [t.header.episode_id, t]));
    expect(recorded.get(kept)?.steps.map((s) => s.index)).toEqual([0, 1, 2, 3]);
    expect(recorded.get(kept)?.end).toMatchObject({ reward: 1, resolved: true, end_reason: 'submitted' });
    expect(recorded.get(removed)?.steps.map((s) => s.status)).toEqual(['INFRA_ERROR']);
    expect(recorded.get(removed)?.end?.end_reason).toBe('infra_error');
  });

  it('a command running when the server died is not lost: the retried Step waits for it and answers its exit code (killed at its time limit if need be), without running it again; a command that destroyed the journal is INFRA_ERROR', async () => {
    const { serverId, stateDir, provider } = setup();
    const first = await serve(serverId, stateDir);
    const a = new SweEnvClient(first.address);
    const [ends, overruns, blind] = ['ends', 'overruns', 'blind'].map((n) => `${n}-${randomUUID().slice(0, 8)}`) as [
      string,
      string,
      string,
    ];
    await a.reset({ taskId: TASK, episodeId: ends });
    await a.reset({ taskId: TASK, episodeId: overruns, options: { commandTimeoutS: 6 } });
    await a.reset({ taskId: TASK, episodeId: blind });
    await a.bash(ends, 0, 'echo warm-up');
    const cut = {
      [ends]: 'sleep 5; mkdir -p /tmp/c && cd /tmp/c && echo ran >> once && (exit 3)',
      [overruns]: 'sleep 299 && echo never > /tmp/late',
      // The agent removes the journal and puts a file where its directory was: nothing can tell.
      [blind]: 'rm -rf /dev/shm/swe-env && touch /dev/shm/swe-env && sleep 4',
    };
    const index = { [ends]: 1, [overruns]: 0, [blind]: 0 };
    for (const id of [ends, overruns, blind]) void a.bash(id, index[id]!, cut[id]!).catch(() => undefined);
    // The crash comes once every command runs in its shell: the record names the step before it is
    // sent, and the shell's journal (or, for blind, its first act) says it was read.
    for (const id of [ends, overruns, blind]) {
      await expect
        .poll(() => (record(stateDir, serverId, id)?.['inflight'] as { index?: number } | undefined)?.index, { timeout: 30_000 })
        .toBe(index[id]);
    }
    const running = {
      [ends]: 'grep -q "^step-1 " /dev/shm/swe-env/start',
      [overruns]: 'grep -q "^step-0 " /dev/shm/swe-env/start',
      [blind]: '[ -f /dev/shm/swe-env ]',
    };
    for (const id of [ends, overruns, blind]) {
      await expect.poll(() => succeedsIn(provider, id, running[id]!), { timeout: 30_000, interval: 100 }).toBe(true);
    }
    a.dispose();
    await stopCli(first.child, 'SIGKILL');

    const second = await serve(serverId, stateDir);
    const b = new SweEnvClient(second.address);
    // The retry carries the model's message again: the trajectory gets it (the record does not keep it).
    const turn = { content: 'Let me run it.', reasoning: 'the counter first', model: 'scripted' };
    const [ended, killed, unknown] = await Promise.all([
      b.step(ends, 1, { name: 'bash', arguments: { command: cut[ends]! } }, undefined, turn),
      b.bash(overruns, 0, cut[overruns]!),
      b.bash(blind, 0, cut[blind]!),
    ]);
    expect(ended.status).toBe('STEP_STATUS_OK');
    expect(ended.exitCode).toBe(3);
    expect(ended.observation).toMatch(/server restarted while this command ran.*exit code 3; its output was lost/);
    const after = await b.bash(ends, 2, 'pwd; cat once');
    // The command ran once, and the new shell starts where it left off.
    expect(after.observation).toMatch(/^\/tmp\/c\nran\n/);
    expect(after.observation).toMatch(/server restarted.*new shell was started in \/tmp\/c/);

    expect(killed.status).toBe('STEP_STATUS_COMMAND_TIMEOUT');
    expect(killed.observation).toMatch(/killed at its time limit/);
    const late = await b.bash(overruns, 1, 'ls /tmp/late 2>&1; ps -eo args | grep -c "^sleep 299$"');
    expect(late.observation).toMatch(/No such file or directory\n0\n/);

    expect(unknown.status).toBe('STEP_STATUS_INFRA_ERROR');
    expect(unknown.observation).toMatch(/server restarted while step 0 ran, and the container does not say how its command ended/);
    expect((await b.close(blind)).summary?.endReason).toBe('infra_error');
    for (const id of [ends, overruns]) await b.close(id);
    b.dispose();
    await stopCli(second.child, 'SIGTERM');
    await expectNoContainers(provider);

    const recorded = (await loadTrajectories([join(stateDir, 'trajectories')])).find((t) => t.header.episode_id === ends);
    expect(recorded?.steps.map((s) => [s.index, s.exit_code, s.info['output_lost'] ?? false])).toEqual([
      [0, 0, false],
      [1, 3, true],
      [2, 0, false],
    ]);
    expect(recorded?.steps[1]?.assistant).toEqual(turn);
  });

  it('a submit whose grading was under way when the server died is graded again from its captured change', async () => {
    const { serverId, stateDir, provider } = setup();
    const first = await serve(serverId, stateDir);
    const a = new SweEnvClient(first.address);
    const id = `submit-${randomUUID().slice(0, 8)}`;
    await a.reset({ taskId: TASK, episodeId: id });
    await a.bash(id, 0, applyPatchCommand(task.goldPatch));
    void a.submit(id, 1).catch(() => undefined);
    await expect.poll(() => record(stateDir, serverId, id)?.['captured'] !== undefined, { timeout: 60_000, interval: 20 }).toBe(true);
    a.dispose();
    await stopCli(first.child, 'SIGKILL');

    const second = await serve(serverId, stateDir);
    const b = new SweEnvClient(second.address);
    const graded = await b.submit(id, 1);
    expect(graded.status).toBe('STEP_STATUS_OK');
    expect(graded.reward).toBe(1);
    expect(graded.terminated).toBe(true);
    b.dispose();
    await stopCli(second.child, 'SIGTERM');
    await expectNoContainers(provider);
  });

  it('--on-shutdown leave with a grading still running past the grace: the next start grades the captured change again (not INFRA_ERROR)', async () => {
    const { serverId, stateDir, provider } = setup();
    const first = await serve(serverId, stateDir, ['--on-shutdown', 'leave', '--shutdown-grace', '1']);
    const a = new SweEnvClient(first.address);
    const id = `grading-${randomUUID().slice(0, 8)}`;
    await a.reset({ taskId: TASK, episodeId: id });
    // The fix, and an import that takes 8 s: the grading outlasts the shutdown's grace.
    await a.bash(
      id,
      0,
      `cd ${task.workdir} && ${applyPatchCommand(task.goldPatch)} && echo 'import time; time.sleep(8)' >> textkit/slug.py`,
    );
    void a.submit(id, 1).catch(() => undefined);
    await expect.poll(() => record(stateDir, serverId, id)?.['captured'] !== undefined, { timeout: 60_000, interval: 20 }).toBe(true);
    a.dispose();
    await stopCli(first.child, 'SIGTERM');
    expect(record(stateDir, serverId, id)?.['inflight']).toMatchObject({ index: 1 });

    const second = await serve(serverId, stateDir);
    const b = new SweEnvClient(second.address);
    const graded = await b.submit(id, 1);
    expect(graded.status).toBe('STEP_STATUS_OK');
    expect(graded.reward).toBe(1);
    b.dispose();
    await stopCli(second.child, 'SIGTERM');
    await expectNoContainers(provider);
  });

  it("--on-shutdown leave keeps live episodes' containers for the next start, which goes on with them, a command still running past the grace included", async () => {
    const { serverId, stateDir, provider } = setup();
    const first = await serve(serverId, stateDir, ['--on-shutdown', 'leave']);
    const a = new SweEnvClient(first.address);
    const id = `left-${randomUUID().slice(0, 8)}`;
    const busy = `busy-${randomUUID().slice(0, 8)}`;
    await a.reset({ taskId: TASK, episodeId: id });
    await a.reset({ taskId: TASK, episodeId: busy });
    await a.bash(id, 0, 'cd /tmp && echo kept > left-behind');
    // Still running when SIGTERM's grace (5 s) is over: it goes on in the container.
    const long = 'sleep 12; echo ran >> /tmp/once; (exit 4)';
    void a.bash(busy, 0, long).catch(() => undefined);
    await expect
      .poll(() => (record(stateDir, serverId, busy)?.['inflight'] as { index?: number } | undefined)?.index, { timeout: 30_000 })
      .toBe(0);
    a.dispose();
    await stopCli(first.child, 'SIGTERM');
    expect(await provider.listContainers({ episodeId: id })).toHaveLength(1);
    expect(await provider.listContainers({ episodeId: busy })).toHaveLength(1);

    const second = await serve(serverId, stateDir);
    const b = new SweEnvClient(second.address);
    const next = await b.bash(id, 1, 'cat left-behind');
    expect(next.observation).toMatch(/^kept\n/);
    const answered = await b.bash(busy, 0, long);
    expect(answered.status).toBe('STEP_STATUS_OK');
    expect(answered.exitCode).toBe(4);
    expect(SweEnvClient.structToObject(answered.info)['output_lost']).toBe(true);
    expect((await b.bash(busy, 1, 'cat /tmp/once')).observation).toMatch(/^ran\n/);
    b.dispose();
    await stopCli(second.child, 'SIGTERM');
    await expectNoContainers(provider);
  });
});
