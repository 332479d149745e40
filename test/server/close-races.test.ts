import { status as GrpcStatus } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DockerSandboxProvider } from '../../src/sandbox/docker-sandbox.js';
import { loadTaskFile } from '../../src/tasks/loader.js';
import { startSocketProxy, type SocketProxy } from '../helpers/socket-proxy.js';
import { applyPatchCommand, DEMO_TASKS, startTestServer, type TestServer, expectNoContainers } from '../helpers/server.js';

/**
 * Close racing the episode's own end: a Close during a submit's grading must report the grade the
 * submit reports (not a 0 of its own), and a Close the engine cannot carry out must say so and be
 * finished later, not dropped.
 */
const { tasks } = await loadTaskFile(DEMO_TASKS);
const task = tasks.find((x) => x.id === 'swe-env-demo__minicalc-1')!;

describe('Close during a submit', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => {
    await t?.stop();
    await expectNoContainers(t.server.provider);
  });

  it('waits for the grading and reports the same reward and end as the submit', async () => {
    const { episodeId } = await t.client.reset({ taskId: task.id });
    const applied = await t.client.bash(episodeId, 0, applyPatchCommand(task.goldPatch));
    expect(applied.exitCode).toBe(0);
    const submitted = t.client.submit(episodeId, 1);
    // The grading container carries the episode's id: it is the second one.
    await expect
      .poll(async () => (await t.server.provider.listContainers({ episodeId })).length, { timeout: 60_000, interval: 50 })
      .toBeGreaterThanOrEqual(2);
    const closed = await t.client.close(episodeId);
    const step = await submitted;
    expect(step.reward).toBe(1);
    expect(step.terminated).toBe(true);
    expect(closed.summary!.reward).toBe(1);
    expect(closed.summary!.endReason).toBe('submitted');
    expect(closed.summary!.report!.resolved).toBe(true);
    expect(closed.summary!.containerRemovalPending).toBe('');
    await expect.poll(() => t.server.provider.listContainers({ episodeId }), { timeout: 30_000 }).toEqual([]);
  });

  it('a command running when Close comes is stopped and reported as closed, not as an environment failure', async () => {
    const { episodeId } = await t.client.reset({ taskId: task.id, options: { commandTimeoutS: 120 } });
    const running = t.client.bash(episodeId, 0, 'sleep 100');
    // Close once the command runs in the sandbox.
    const [container] = await t.server.provider.listContainers({ episodeId });
    const commands = async (): Promise<string[]> =>
      (
        (await t.server.provider.docker.getContainer(container!).top({ ps_args: '-o pid,args' })) as { Processes?: string[][] }
      ).Processes?.map((row) => row.join(' ')) ?? [];
    await expect.poll(async () => (await commands()).some((c) => c.includes('sleep 100')), { timeout: 30_000, interval: 100 }).toBe(true);
    const closed = await t.client.close(episodeId);
    const step = await running;
    expect(step.status).toBe('STEP_STATUS_OK');
    expect(step.truncated).toBe(true);
    expect(step.observation).toMatch(/closed while this command ran/);
    expect(closed.summary!.endReason).toBe('closed');
  });
});

describe('Close while the engine does not answer', () => {
  let proxy: SocketProxy;
  let t: TestServer;
  beforeAll(async () => {
    proxy = await startSocketProxy();
    t = await startTestServer({ dockerSocket: proxy.path, sweepIntervalS: 1 });
  });
  afterAll(async () => {
    proxy?.restore();
    await t?.stop();
    await proxy?.close();
    // Asked of the engine directly: the proxy is gone.
    await expectNoContainers(new DockerSandboxProvider(t.server.config.serverId));
  });

  it('reports the removal as pending, keeps retrying, and removes the container once the engine is back', async () => {
    const { episodeId } = await t.client.reset({ taskId: task.id });
    const [container] = await t.server.provider.listContainers({ episodeId });
    expect(container).toBeDefined();
    proxy.cut();
    const closed = await t.client.close(episodeId);
    expect(closed.summary!.endReason).toBe('closed');
    expect(closed.summary!.containerRemovalPending).not.toBe('');
    expect(t.server.registry.removalsPending).toBe(1);
    // Still there: the server could not reach the engine (checked behind the proxy's back).
    const direct = new DockerSandboxProvider(t.server.config.serverId);
    expect(await direct.listContainers({ episodeId })).toEqual([container]);
    proxy.restore();
    await expect.poll(() => t.server.registry.removalsPending, { timeout: 60_000, interval: 500 }).toBe(0);
    expect(await t.server.provider.listContainers({ episodeId })).toEqual([]);
    // The episode's record now says the container is gone, and the events stream is followed again.
    const again = await t.client.close(episodeId);
    expect(again.summary!.containerRemovalPending).toBe('');
    await expect.poll(() => t.server.provider.events.following, { timeout: 30_000 }).toBe(true);
  });

  it('Reset while the engine does not answer is UNAVAILABLE with a clear message, and works again once it is back', async () => {
    proxy.cut();
    try {
      const error = await t.client.reset({ taskId: task.id }).then(
        () => undefined,
        (e: unknown) => e as { code?: number; details?: string },
      );
      expect(error?.code).toBe(GrpcStatus.UNAVAILABLE);
      expect(error?.details).toMatch(/engine does not answer/);
    } finally {
      proxy.restore();
    }
    const { episodeId } = await t.client.reset({ taskId: task.id });
    expect((await t.client.bash(episodeId, 0, 'echo back')).observation).toBe('back\n');
    await t.client.close(episodeId);
  });
});
