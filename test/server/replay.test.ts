import { status as GrpcStatus } from '@grpc/grpc-js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportRows, loadTrajectories } from '../../src/trajectories/export.js';
import { withFullConversations } from '../../src/trajectories/lineage.js';
import { expectNoContainers, startTestServer, type TestServer } from '../helpers/server.js';

const TASK = 'swe-env-demo__textkit-2';
const dir = mkdtempSync(join(tmpdir(), 'swe-env-replay-'));
let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ trajectoryDir: dir });
});

afterAll(async () => {
  await t?.stop();
  await expectNoContainers(t.server.provider);
  rmSync(dir, { recursive: true, force: true });
});

/** The recorded lines of an episode, once its end is written (the recorder writes behind the steps). */
async function recorded(episodeId: string): Promise<string> {
  let text = '';
  await expect
    .poll(
      async () => {
        const file = await t.server.registry.trajectories!.find(episodeId);
        text = file ? readFileSync(file, 'utf8') : '';
        return text.includes('"type":"end"');
      },
      { timeout: 30_000 },
    )
    .toBe(true);
  return text;
}

describe('Replay', () => {
  it("reruns a fork child's recorded prefix (its parent's steps first), reports the one step that did not repeat, and goes on from there; export rebuilds the child's whole conversation", async () => {
    const parent = (await t.client.reset({ taskId: TASK })).episodeId;
    await t.client.bash(parent, 0, 'echo one > /tmp/r && cat /tmp/r');
    await t.client.bash(parent, 1, 'cd /tmp && export WHO=parent');
    const [child] = (await t.client.fork(parent, 1)).episodeIds as [string];
    await t.client.bash(child, 2, 'cat /proc/sys/kernel/random/uuid');
    await t.client.bash(child, 3, 'echo two >> r && wc -l < r && echo $WHO');
    await t.client.close(child);
    await t.client.close(parent);
    await recorded(child);
    await recorded(parent);

    const replay = await t.client.replay({ sourceEpisodeId: child, steps: 4 });
    expect(replay.steps).toBe(4);
    expect(replay.divergences.map((d) => [d.stepIndex, d.field])).toEqual([[2, 'observation']]);
    expect(replay.firstDivergence).toBe(2);
    const after = await t.client.bash(replay.episodeId, 4, 'cat r; pwd; echo $WHO');
    expect(after.observation).toBe('one\ntwo\n/tmp\nparent\n');
    await t.client.close(replay.episodeId);

    // From the recording's own text (any server can take it): every bash step when steps is 0.
    const text = await recorded(parent);
    const again = await t.client.replay({ trajectoryJsonl: text });
    expect([again.steps, again.firstDivergence]).toEqual([2, -1]);
    await t.client.close(again.episodeId);
    await expect(t.client.replay({ trajectoryJsonl: text, steps: 3 })).rejects.toMatchObject({ code: GrpcStatus.INVALID_ARGUMENT });

    const all = await loadTrajectories([dir]);
    const [full] = exportRows(
      (await withFullConversations(all)).filter((x) => x.header.episode_id === child),
      'sft',
    ) as [{ messages: Array<{ role: string; content: string | null }>; metadata: Record<string, unknown> }];
    expect(full.metadata).toMatchObject({ parent_episode_id: parent, branch_step: 2, turns: 4 });
    expect(full.messages.filter((m) => m.role === 'tool').map((m) => m.content)).toEqual([
      'one\n',
      '',
      expect.stringMatching(/^[0-9a-f-]{36}\n$/),
      '2\nparent\n',
    ]);
    const [own] = exportRows(
      all.filter((x) => x.header.episode_id === child),
      'sft',
    ) as [{ metadata: Record<string, unknown> }];
    expect(own.metadata).toMatchObject({ parent_episode_id: parent, branch_step: 2, turns: 2 });
  });
});
