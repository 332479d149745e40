import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, expectNoContainers } from '../helpers/server.js';

/**
 * Failures on the right side: a sandbox its own commands bring down is the model's failure (reward
 * 0, a clear end), never a masked INFRA_ERROR; a sandbox killed from outside stays INFRA_ERROR.
 */
let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ limits: { memoryBytes: 512 * 1024 ** 2, nanoCpus: 1e9, pidsLimit: 512 } });
});

afterAll(async () => {
  await t?.stop();
  await expectNoContainers(t.server.provider);
});

describe("a sandbox's death", () => {
  it('PID 1 made the OOM victim, then memory exhausted: the sandbox stays up (the kernel kills the hog) and the episode goes on', async () => {
    // On kernels whose OOM killer would pick the container's init, the engine's oom+die report makes
    // this the model's failure (reward 0, end reason sandbox_oom; unit-tested in container-events);
    // on this machine's kernel the init is never picked, which this asserts.
    const reset = await t.client.reset({ taskId: 'swe-env-demo__minicalc-1' });
    const id = reset.episodeId;
    try {
      const raised = await t.client.bash(id, 0, 'echo 1000 > /proc/1/oom_score_adj && cat /proc/1/oom_score_adj');
      expect(raised.observation.trim()).toBe('1000');
      const hog = await t.client.bash(
        id,
        1,
        `python3 -c "
chunks = []
while True:
    chunks.append(b'x' * (1 << 20))
"`,
      );
      expect(hog.status).toBe('STEP_STATUS_OK');
      expect(hog.exitCode).toBe(137);
      const next = await t.client.bash(id, 2, 'echo alive');
      expect(next.observation).toBe('alive\n');
    } finally {
      await t.client.close(id).catch(() => undefined);
    }
  });

  it('a sandbox killed from outside is still INFRA_ERROR', async () => {
    const reset = await t.client.reset({ taskId: 'swe-env-demo__minicalc-1' });
    const id = reset.episodeId;
    try {
      const [container] = await t.server.provider.listContainers({ episodeId: id });
      await t.server.provider.docker.getContainer(container!).kill();
      const step = await t.client.bash(id, 0, 'true');
      expect(step.status).toBe('STEP_STATUS_INFRA_ERROR');
    } finally {
      await t.client.close(id).catch(() => undefined);
    }
  });
});
