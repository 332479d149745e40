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
  return serveCli(['--server-id', serverId, '--state-dir', stateDir, '--trajectory-dir', join(stateDir, 'trajectories'), '--shutdown-grace', '5', ...extra]);
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
  it('after SIGKILL: a retried Step returns its recorded result and the episode goes on in its container to reward 1; a command cut by the crash and a container removed meanwhile are INFRA_ERROR saying the server restarted', async () => {
    const { serverId, stateDir, provider } = setup();
    const first = await serve(serverId, stateDir);
    const a = new SweEnvClient(first.address);
    const [kept, cut, removed, closed] = ['kept', 'cut', 'removed', 'closed'].map((n) => `${n}-${randomUUID().slice(0, 8)}`) as [string, string, string, string];
    for (const id of [kept, cut, removed, closed]) await a.reset({ taskId: TASK, episodeId: id });
    const keptContainer = await provider.listContainers({ episodeId: kept });
    expect(keptContainer).toHaveLength(1);

    const before = await a.bash(kept, 0, 'mkdir -p /tmp/w && cd /tmp/w && echo one >> count && export FOO=bar && echo ran-once');
    expect(before.status).toBe('STEP_STATUS_OK');
    const closedSummary = (await a.close(closed)).summary!;
    // A command the crash cuts: the record says it started before it runs.
    void a.bash(cut, 0, 'sleep 120').catch(() => undefined);
    await expect.poll(() => (record(stateDir, serverId, cut)?.['inflight'] as { index?: number } | undefined)?.index, { timeout: 30_000 }).toBe(0);
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

    const cutRetry = await b.bash(cut, 0, 'sleep 120');
    expect(cutRetry.status).toBe('STEP_STATUS_INFRA_ERROR');
    expect(cutRetry.observation).toMatch(/server restarted while step 0 ran/);
    await expect.poll(() => provider.listContainers({ episodeId: cut }), { timeout: 30_000 }).toEqual([]);

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
    expect(recorded.get(cut)?.end?.end_reason).toBe('infra_error');
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

  it("--on-shutdown leave keeps live episodes' containers for the next start, which goes on with them", async () => {
    const { serverId, stateDir, provider } = setup();
    const first = await serve(serverId, stateDir, ['--on-shutdown', 'leave']);
    const a = new SweEnvClient(first.address);
    const id = `left-${randomUUID().slice(0, 8)}`;
    await a.reset({ taskId: TASK, episodeId: id });
    await a.bash(id, 0, 'cd /tmp && echo kept > left-behind');
    a.dispose();
    await stopCli(first.child, 'SIGTERM');
    expect(await provider.listContainers({ episodeId: id })).toHaveLength(1);

    const second = await serve(serverId, stateDir);
    const b = new SweEnvClient(second.address);
    const next = await b.bash(id, 1, 'cat left-behind');
    expect(next.observation).toMatch(/^kept\n/);
    b.dispose();
    await stopCli(second.child, 'SIGTERM');
    await expectNoContainers(provider);
  });
});
