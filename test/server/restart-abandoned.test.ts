import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { afterAll, describe, expect, it } from 'vitest';
import { SweEnvClient } from '../../src/client/client.js';
import { packageRoot } from '../../src/common/paths.js';
import { DockerSandboxProvider } from '../../src/sandbox/docker-sandbox.js';
import { loadTrajectories } from '../../src/trajectories/export.js';
import { expectNoContainers } from '../helpers/server.js';
import { killCliServers, serveCli, stopCli } from '../helpers/cli-server.js';

const TASK = 'swe-env-demo__textkit-1';
const GRACE_S = 10;
const serverId = `test-abandoned-${randomUUID().slice(0, 8)}`;
const stateDir = mkdtempSync(join(tmpdir(), 'swe-env-state-'));
const provider = new DockerSandboxProvider(serverId);

function serve(): ReturnType<typeof serveCli> {
  // The idle timeout stays the default (1800 s): only the adoption grace can end an episode here.
  return serveCli([
    '--server-id',
    serverId,
    '--state-dir',
    stateDir,
    '--trajectory-dir',
    join(stateDir, 'trajectories'),
    '--adoption-grace',
    String(GRACE_S),
  ]);
}

afterAll(async () => {
  killCliServers();
  await provider.removeServerContainers();
  rmSync(stateDir, { recursive: true, force: true });
});

async function rejection(call: Promise<unknown>): Promise<{ code?: number; details?: string } | undefined> {
  return call.then(
    () => undefined,
    (error: unknown) => error as { code?: number; details?: string },
  );
}

describe('after a restart, an episode the server took over', () => {
  it('that no client calls within --adoption-grace is ended and its container removed; one whose client comes back within it goes on', async () => {
    const first = await serve();
    const a = new SweEnvClient(first.address);
    const [abandoned, returning] = ['abandoned', 'returning'].map((n) => `${n}-${randomUUID().slice(0, 8)}`) as [string, string];
    for (const id of [abandoned, returning]) {
      await a.reset({ taskId: TASK, episodeId: id });
      expect((await a.bash(id, 0, 'echo before > /tmp/mark && echo ok')).status).toBe('STEP_STATUS_OK');
    }
    a.dispose();
    await stopCli(first.child, 'SIGKILL');
    expect(await provider.listContainers({ episodeId: abandoned })).toHaveLength(1);
    const returningContainer = await provider.listContainers({ episodeId: returning });
    expect(returningContainer).toHaveLength(1);

    const second = await serve();
    const b = new SweEnvClient(second.address);
    // The returning client's next step, right after the restart: it claims its episode.
    const next = await b.bash(returning, 1, 'cat /tmp/mark');
    expect(next.status).toBe('STEP_STATUS_OK');
    expect(next.observation).toMatch(/^before\n/);

    // Nobody calls the other one: its container goes once the grace is over (well before the
    // 1800 s idle timeout; the bound here only keeps a broken server from hanging the test).
    const until = Date.now() + (GRACE_S + 60) * 1000;
    let left = await provider.listContainers({ episodeId: abandoned });
    while (left.length > 0 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 500));
      left = await provider.listContainers({ episodeId: abandoned });
    }
    expect(left).toEqual([]);

    // Past the grace, the claimed episode goes on in its own container.
    expect(await provider.listContainers({ episodeId: returning })).toEqual(returningContainer);
    const after = await b.bash(returning, 2, 'cat /tmp/mark && echo still-here');
    expect(after.status).toBe('STEP_STATUS_OK');
    expect(after.observation).toMatch(/before\nstill-here/);
    expect((await b.close(returning)).summary?.endReason).toBe('closed');

    // The abandoned one says what happened, and ended as the environment's failure (masked, never a 0 to train on).
    const gone = await rejection(b.bash(abandoned, 1, 'true'));
    expect(gone?.code).toBe(GrpcStatus.NOT_FOUND);
    expect(gone?.details).toMatch(new RegExp(`no client called it within ${GRACE_S}s`));
    expect((await b.close(abandoned)).summary?.endReason).toBe('infra_error');
    b.dispose();
    await stopCli(second.child, 'SIGTERM');
    await expectNoContainers(provider);

    const recorded = new Map((await loadTrajectories([join(stateDir, 'trajectories')])).map((t) => [t.header.episode_id, t]));
    expect(recorded.get(abandoned)?.end?.end_reason).toBe('infra_error');
    expect(recorded.get(returning)?.steps.map((s) => s.index)).toEqual([0, 1, 2]);
  });

  it('serve --help documents the option and its default', () => {
    const help = spawnSync('node', [join(packageRoot(), 'dist', 'src', 'cli', 'main.js'), 'serve', '--help'], { encoding: 'utf8' });
    expect(help.stdout).toMatch(/--adoption-grace <s>[\s\S]*default\s+300\)/);
  });
});
