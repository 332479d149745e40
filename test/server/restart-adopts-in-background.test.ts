import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DockerSandboxProvider } from '../../src/sandbox/docker-sandbox.js';
import { expectNoContainers, startTestServer, type TestServer } from '../helpers/server.js';

// Family 7: a restart adopted every live episode (a new shell in each container) before it listened;
// the agent's files can make a shell start slow (its start-up sources conda's `activate`), and one
// slow shell held a whole restart. Now the server listens at once and adoptions go on behind it.
const TASK = 'swe-env-demo__textkit-1';
const serverId = `test-adopt-${randomUUID().slice(0, 8)}`;
const stateDir = mkdtempSync(join(tmpdir(), 'swe-env-state-'));
const provider = new DockerSandboxProvider(serverId);
const servers: TestServer[] = [];

afterAll(async () => {
  for (const s of servers) await s.stop().catch(() => undefined);
  await provider.removeServerContainers();
  rmSync(stateDir, { recursive: true, force: true });
});

describe('a restart with an episode whose shell is slow to start', () => {
  it('listens and serves other episodes at once; a step on the slow one waits for its adoption and then runs', async () => {
    const first = await startTestServer({ serverId, stateDir, onShutdown: 'leave' });
    servers.push(first);
    const slow = `slow-${randomUUID().slice(0, 8)}`;
    const quick = `quick-${randomUUID().slice(0, 8)}`;
    await first.client.reset({ taskId: TASK, episodeId: slow });
    await first.client.reset({ taskId: TASK, episodeId: quick });
    // The next shell in this container waits at start-up until /tmp/go exists.
    const planted = await first.client.bash(
      slow,
      0,
      'mkdir -p /opt/miniconda3/bin && echo "until [ -e /tmp/go ]; do sleep 0.1; done" > /opt/miniconda3/bin/activate && echo planted',
    );
    expect(planted.observation).toContain('planted');
    await first.stop();

    const second = await startTestServer({ serverId, stateDir, onShutdown: 'drain' });
    servers.push(second);
    // Started while the slow shell is held: other calls are served.
    const other = await second.client.bash(quick, 0, 'echo served');
    expect(other.status).toBe('STEP_STATUS_OK');
    expect(other.observation).toContain('served');
    const waiting = second.client.bash(slow, 1, 'echo adopted');
    // Only now is the slow shell let go (the engine runs this, not the held shell).
    const [container] = await provider.listContainers({ episodeId: slow });
    const exec = await provider.docker.getContainer(container!).exec({ Cmd: ['touch', '/tmp/go'] });
    await exec.start({});
    const step = await waiting;
    expect(step.status).toBe('STEP_STATUS_OK');
    expect(step.observation).toContain('adopted');
    await second.client.close(slow);
    await second.client.close(quick);
    await second.stop();
    servers.length = 0;
    await expectNoContainers(provider);
  });
});
