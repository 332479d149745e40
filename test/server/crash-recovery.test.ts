import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { SweEnvClient } from '../../src/client/client.js';
import { DockerSandboxProvider } from '../../src/sandbox/docker-sandbox.js';
import { killCliServers, serveCli } from '../helpers/cli-server.js';
import { expectNoContainers } from '../helpers/server.js';

const serverId = `test-crash-${randomUUID().slice(0, 8)}`;
const provider = new DockerSandboxProvider(serverId);

function serve(): ReturnType<typeof serveCli> {
  return serveCli(['--server-id', serverId, '--no-state', '--no-trajectories'], 'ignore');
}

afterAll(async () => {
  killCliServers();
  await provider.removeServerContainers();
});

describe('a server without episode records (--no-state) killed with SIGKILL', () => {
  it('leaves containers that its restart (same server id) removes: 0 leaked', async () => {
    const first = await serve();
    const client = new SweEnvClient(first.address);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await client.reset({ taskId: 'swe-env-demo__textkit-1' });
      ids.push(r.episodeId);
      await client.bash(r.episodeId, 0, 'sleep 300 &');
    }
    client.dispose();
    expect(await provider.listContainers()).toHaveLength(3);
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));
    expect(await provider.listContainers()).toHaveLength(3);

    const second = await serve();
    await expectNoContainers(provider);
    // An episode of the killed run: NOT_FOUND that says the server restarted.
    const again = new SweEnvClient(second.address);
    const gone = (await again.bash(ids[0]!, 1, 'true').then(
      () => undefined,
      (error: unknown) => error,
    )) as { code?: number; details?: string } | undefined;
    expect(gone?.code).toBe(5); // NOT_FOUND
    expect(gone?.details).toMatch(/do not survive a restart/);
    again.dispose();
    second.child.kill('SIGTERM');
    await new Promise((r) => second.child.once('exit', r));
  });
});
