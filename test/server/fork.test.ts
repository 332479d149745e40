import { status as GrpcStatus } from '@grpc/grpc-js';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SweEnvClient } from '../../src/client/client.js';
import { FleetClient } from '../../src/client/fleet.js';
import { loadTaskFile } from '../../src/tasks/loader.js';
import { fullSteps } from '../../src/trajectories/lineage.js';
import { readTrajectory } from '../../src/trajectories/trajectory-format.js';
import { patchOf } from '../helpers/capture-episodes.js';
import { applyPatchCommand, DEMO_TASKS, expectNoContainers, startTestServer, type TestServer } from '../helpers/server.js';

const TASK = 'swe-env-demo__textkit-2';
const task = (await loadTaskFile(DEMO_TASKS)).tasks.find((t) => t.id === TASK)!;
const stateDir = mkdtempSync(join(tmpdir(), 'swe-env-fork-'));
const serverId = `test-fork-${randomUUID().slice(0, 8)}`;
const servers: TestServer[] = [];

async function serve(onShutdown: 'leave' | 'drain'): Promise<TestServer> {
  const t = await startTestServer({ serverId, stateDir, trajectoryDir: join(stateDir, 'trajectories'), onShutdown, shutdownGraceS: 1 });
  servers.push(t);
  return t;
}

afterAll(async () => {
  const last = servers.at(-1);
  if (last) {
    // Whatever a failed test left: the last server drains every episode, then nothing may remain.
    await last.stop();
    await last.server.provider.removeServerContainers();
    await expectNoContainers(last.server.provider);
  }
  rmSync(stateDir, { recursive: true, force: true });
});

/**
 * The state a fork must copy, as one text: a git tree hash of the repository with every
 * uncommitted edit and untracked file (a scratch index, so the real one is untouched), files
 * outside it with their owner and mode, the shell's directory and its exported variables.
 */
const STATE = [
  'here=$PWD',
  'cd /testbed && export GIT_INDEX_FILE=/tmp/fork-test-index && rm -f $GIT_INDEX_FILE && git add -A . && echo "tree $(git write-tree)"; rm -f $GIT_INDEX_FILE; unset GIT_INDEX_FILE',
  'stat -c "%n %a %U" /opt/outside /opt/outside/secret; readlink /opt/outside/link; ls /testbed/textkit/gone 2>&1 | wc -l',
  'cd "$here" && echo "cwd $PWD"',
  'export -p | grep -v -e "declare -x OLDPWD" -e "declare -x _="',
].join('\n');

async function state(client: SweEnvClient, id: string, step: number): Promise<string> {
  const answer = await client.bash(id, step, STATE);
  expect(answer.status, answer.observation).toBe('STEP_STATUS_OK');
  return answer.observation;
}

describe('Fork', () => {
  it("gives children the parent's filesystem, shell directory, exported variables and step count; children and parent are independent, graded alone, and survive a restart", async () => {
    let t = await serve('leave');
    const parent = (await t.client.reset({ taskId: TASK, episodeId: `parent-${randomUUID().slice(0, 8)}` })).episodeId;
    const edits = [
      // An uncommitted edit, an untracked file, a deleted tracked file's directory replaced, a file outside the repository.
      'cd /testbed && echo "# parent edit" >> textkit/wrap.py && echo untracked > notes.txt && mkdir -p textkit/gone && touch textkit/gone/a',
      'mkdir -p /opt/outside && echo s > /opt/outside/secret && chmod 640 /opt/outside/secret && chown nobody /opt/outside/secret && ln -s /etc/hostname /opt/outside/link',
      "rm -rf /testbed/textkit/gone && mkdir -p /testbed/sub/dir && cd /testbed/sub/dir && export FOO='a b\"c' MULTI=$'one\\ntwo' && unset PAGER",
    ];
    for (const [i, command] of edits.entries()) expect((await t.client.bash(parent, i, command)).exitCode).toBe(0);

    const fork = await t.client.fork(parent, 2);
    expect(fork.branchStep).toBe(3);
    expect(fork.episodeIds).toHaveLength(2);
    const [a, b] = fork.episodeIds as [string, string];
    expect(Number(fork.copiedEntries)).toBeGreaterThan(3);

    const parentState = await state(t.client, parent, 3);
    expect(parentState).toMatch(/^tree [0-9a-f]{40}\n/);
    expect(parentState).toContain('/opt/outside/secret 640 nobody');
    expect(parentState).toContain('cwd /testbed/sub/dir');
    expect(parentState).toContain('declare -x FOO="a b\\"c"');
    expect(parentState).not.toContain('declare -x PAGER');
    for (const child of [a, b]) expect(await state(t.client, child, 3)).toBe(parentState);

    // A child's step_index continues the parent's count: 0 is long gone, 5 is ahead.
    await expect(t.client.bash(a, 5, 'true')).rejects.toMatchObject({ code: GrpcStatus.FAILED_PRECONDITION });

    // Independent: a write in one is seen in no other.
    await t.client.bash(a, 4, 'echo a > /testbed/only-a');
    await t.client.bash(parent, 4, 'echo p > /testbed/only-parent');
    const seen = 'ls /testbed/only-a /testbed/only-parent 2>/dev/null | wc -l';
    expect((await t.client.bash(a, 5, seen)).observation.trim()).toBe('1');
    expect((await t.client.bash(b, 4, seen)).observation.trim()).toBe('0');
    expect((await t.client.bash(parent, 5, seen)).observation.trim()).toBe('1');

    // Graded like any episode, from its own repository (the parent's edit to wrap.py is in it).
    await t.client.bash(a, 6, `cd /testbed && git checkout -q textkit/wrap.py && ${applyPatchCommand(task.goldPatch)}`);
    expect((await t.client.submit(a, 7)).reward).toBe(1);
    const unfixed = await t.client.submit(b, 5);
    expect(unfixed.reward).toBe(0);
    expect(patchOf(unfixed)).toContain('# parent edit');

    // Lineage: the child's trajectory names its parent and branch step; the full conversation is rebuilt.
    await t.client.close(a);
    const trajectories = t.server.registry.trajectories!;
    const childTrajectory = (await readTrajectory((await trajectories.find(a))!))!;
    expect(childTrajectory.header).toMatchObject({ parent_episode_id: parent, branch_step: 3 });
    const full = await fullSteps(childTrajectory, async (id) => readTrajectory((await trajectories.find(id))!));
    expect(full.map((s) => s.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(full[0]!.arguments).toEqual({ command: edits[0] });

    // A fork of the parent again, then a restart: the child is taken over in its container with its files.
    const [c] = (await t.client.fork(parent, 1, { childEpisodeIds: [`child-${randomUUID().slice(0, 8)}`] })).episodeIds as [string];
    await t.stop();
    t = await serve('drain');
    const after = await t.client.bash(c, 6, 'cat /testbed/only-parent /opt/outside/secret; pwd');
    expect(after.observation).toMatch(/^p\ns\n\/testbed\/sub\/dir\n/);
    const closed = await t.client.close(c);
    expect(closed.summary?.steps).toBe(7);
    // A retried Fork (same child id) returns that child; forking the restarted parent does not eat
    // the note its next step owes the agent (its shell, and so its exports, were replaced).
    const [d] = (await t.client.fork(parent, 1, { childEpisodeIds: [`child-${randomUUID().slice(0, 8)}`] })).episodeIds as [string];
    expect((await t.client.fork(parent, 1, { childEpisodeIds: [d] })).episodeIds).toEqual([d]);
    expect((await t.client.bash(parent, 6, 'echo "FOO=${FOO:-unset}"')).observation).toMatch(/^FOO=unset\n[\s\S]*server restarted/);
    await Promise.all([t.client.close(d), t.client.close(parent)]);
  });

  it("copies the same state through the engine's archive reads when the parent has no tar", async () => {
    const t = servers.at(-1) ?? (await serve('drain'));
    const parent = (await t.client.reset({ taskId: TASK })).episodeId;
    const setup =
      'rm "$(command -v tar)" && cd /testbed && echo edit >> textkit/wrap.py && rm -rf textkit/__init__.py && mkdir -p /opt/outside && ln -s /etc/hostname /opt/outside/link && export NO_TAR=1';
    expect((await t.client.bash(parent, 0, setup)).exitCode).toBe(0);
    const [child] = (await t.client.fork(parent, 1)).episodeIds as [string];
    const parentState = await state(t.client, parent, 1);
    expect(parentState).toContain('declare -x NO_TAR="1"');
    expect(await state(t.client, child, 1)).toBe(parentState);
    await Promise.all([t.client.close(parent), t.client.close(child)]);
  });

  it("the fleet client keeps a fork's children on their parent's server", async () => {
    const t = servers.at(-1) ?? (await serve('drain'));
    const fleet = await FleetClient.connect({ addresses: [t.server.address], infoTtlMs: 0 });
    try {
      const parent = (await fleet.reset({ taskId: TASK })).episodeId;
      const fork = await fleet.fork(parent, 2);
      expect(fork.episodeIds.map((id) => fleet.serverOf(id))).toEqual([t.server.address, t.server.address]);
      expect((await fleet.bash(fork.episodeIds[0]!, 0, 'echo child')).observation).toBe('child\n');
      for (const id of [parent, ...fork.episodeIds]) await fleet.close(id);
    } finally {
      fleet.dispose();
    }
  });

  it('is refused for an ended episode, and for a count out of range', async () => {
    const t = servers.at(-1) ?? (await serve('drain'));
    const id = (await t.client.reset({ taskId: TASK })).episodeId;
    await expect(t.client.fork(id, 0)).rejects.toMatchObject({ code: GrpcStatus.INVALID_ARGUMENT });
    await t.client.submit(id, 0);
    await expect(t.client.fork(id, 1)).rejects.toMatchObject({ code: GrpcStatus.FAILED_PRECONDITION });
    await t.client.close(id);
  });
});
