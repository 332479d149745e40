import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DockerSandboxProvider } from '../../src/sandbox/docker-sandbox.js';
import { expectNoContainers, startTestServer, type TestServer } from '../helpers/server.js';

// Family 7: the command journal lives in the agent's container (/dev/shm/swe-env), so a command can
// rewrite it. A command that, once the server is gone, makes the journal say "no command started
// yet" and kills its shell was run a second time by the restarted server.
const TASK = 'swe-env-demo__textkit-1';
const serverId = `test-forge-${randomUUID().slice(0, 8)}`;
const stateDir = mkdtempSync(join(tmpdir(), 'swe-env-state-'));
const provider = new DockerSandboxProvider(serverId);
const servers: TestServer[] = [];

afterAll(async () => {
  for (const s of servers) await s.stop().catch(() => undefined);
  await provider.removeServerContainers();
  rmSync(stateDir, { recursive: true, force: true });
});

/** What the container's journal says has started (read by the engine's exec of cat). */
async function journalStart(episodeId: string): Promise<string> {
  const [id] = await provider.listContainers({ episodeId });
  const container = provider.docker.getContainer(id!);
  const exec = await container.exec({ Cmd: ['cat', '/dev/shm/swe-env/start'], AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({});
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString('latin1');
}

describe('a command that forges its journal while the server is down', () => {
  it('is not run a second time by the restarted server', async () => {
    const first = await startTestServer({ serverId, stateDir, onShutdown: 'leave', shutdownGraceS: 1 });
    servers.push(first);
    const id = `forge-${randomUUID().slice(0, 8)}`;
    await first.client.reset({ taskId: TASK, episodeId: id });
    await first.client.bash(id, 0, 'echo warm-up');
    const forge = 'sleep 4; echo one >> /tmp/count; printf "ready 1 -\\n" > /dev/shm/swe-env/start; kill -9 $$';
    void first.client.bash(id, 1, forge).catch(() => undefined);
    await expect.poll(() => journalStart(id), { timeout: 20_000 }).toContain('step-1');
    // Left running when this server goes (--on-shutdown leave); it forges the journal afterwards.
    await first.stop();
    servers.length = 0;

    const second = await startTestServer({ serverId, stateDir, onShutdown: 'drain' });
    servers.push(second);
    const answered = await second.client.bash(id, 1, forge);
    const count = await second.client.bash(id, 2, 'cat /tmp/count');
    // Ran once: one line, not two.
    expect(count.observation).toMatch(/^one\n(?!one)/);
    expect(answered.observation).toMatch(/server restarted while this command ran.*It was not run again/s);
    await second.client.close(id);
    await second.stop();
    servers.length = 0;
    await expectNoContainers(provider);
  });
});
