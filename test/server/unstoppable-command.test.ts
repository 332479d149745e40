import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SweEnvClient } from '../../src/client/client.js';
import { expectNoContainers, startTestServer, type TestServer } from '../helpers/server.js';

// The timeout killer runs beside the sandbox, but it shares the sandbox's process table: a command
// can kill it. Then the engine stops the whole sandbox: the time limit holds, and the episode ends
// as the model's failure, never INFRA_ERROR.
let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});

afterAll(async () => {
  await t?.stop();
  await expectNoContainers(t.server.provider);
});

describe('a command that kills every process newer than its shell', () => {
  it('cannot outlive its time limit: the killer, or else the engine, stops it; never INFRA_ERROR', async () => {
    const reset = await t.client.reset({ taskId: 'swe-env-demo__intervals-1', options: { commandTimeoutS: 2 } });
    const [container] = await t.server.provider.listContainers({ episodeId: reset.episodeId });
    // The loop runs in the shell itself (builtins only) and kills anything started after it.
    const loop = 'while :; do for d in /proc/[0-9]*; do p=${d#/proc/}; (( p > $$ )) && kill -9 "$p" 2>/dev/null; done; done';
    const step = await t.client.bash(reset.episodeId, 0, loop);
    expect(step.status, step.observation).not.toBe('STEP_STATUS_INFRA_ERROR');
    const info = SweEnvClient.structToObject(step.info);
    if (step.terminated) {
      expect(info['end_reason']).toBe('sandbox_unstoppable_command');
      expect(step.reward).toBe(0);
      expect(step.observation).toMatch(/could not be stopped/);
      await expect
        .poll(
          () =>
            t.server.provider.docker
              .getContainer(container!)
              .inspect()
              .then(
                (i) => i.State.Running,
                () => false,
              ),
          { timeout: 15_000 },
        )
        .toBe(false);
    } else {
      expect(step.status).toBe('STEP_STATUS_COMMAND_TIMEOUT');
      const next = await t.client.bash(reset.episodeId, 1, 'echo alive');
      expect(next.observation).toContain('alive');
    }
    await t.client.close(reset.episodeId);
  });
});
