/**
 * A second `swe-env serve` with a server id already in use on this host is refused, with or
 * without episode records: before, `--no-state` took the live server's containers for an earlier
 * run's and removed them. Once the first server is gone (even SIGKILLed), the id is free again.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { SweEnvClient } from '../../src/client/client.js';
import { packageRoot } from '../../src/common/paths.js';
import { DockerSandboxProvider } from '../../src/sandbox/docker-sandbox.js';
import { killCliServers, serveCli, stopCli } from '../helpers/cli-server.js';

const CLI = join(packageRoot(), 'dist', 'src', 'cli', 'main.js');
const serverId = `test-lock-${randomUUID().slice(0, 8)}`;
const provider = new DockerSandboxProvider(serverId);
const scratch: string[] = [];

afterAll(async () => {
  killCliServers();
  await provider.removeServerContainers();
  await Promise.all(scratch.map((d) => rm(d, { recursive: true, force: true })));
});

/** `serve` expected to refuse: its exit code and what it said. */
function refusedServe(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('node', [CLI, 'serve', '--port', '0', '--log-level', 'warn', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // A server that did start is a failure of the test: stop it so the test ends.
    child.stdout.on('data', () => child.kill('SIGKILL'));
    child.once('exit', (code) => resolve({ code, stderr }));
  });
}

describe('one server per server id', () => {
  it("refuses a second server with the id (with --no-state and with state), leaving the live server's episode alone; frees the id once that server is killed", async () => {
    const state = await mkdtemp(join(tmpdir(), 'swe-env-lock-'));
    scratch.push(state);
    const first = await serveCli(['--server-id', serverId, '--no-state', '--no-trajectories']);
    const client = new SweEnvClient(first.address);
    try {
      const reset = await client.reset({ taskId: 'swe-env-demo__textkit-2' }, { timeoutS: 120 });
      expect(await provider.listContainers({ episodeId: reset.episodeId })).toHaveLength(1);

      for (const args of [['--no-state'], ['--state-dir', state]]) {
        const second = await refusedServe(['--server-id', serverId, '--no-trajectories', ...args]);
        expect(second.code).not.toBe(0);
        expect(second.stderr).toMatch(
          new RegExp(`another swe-env server \\(pid ${first.child.pid}\\) is running with server id '${serverId}'.*--server-id`),
        );
      }
      // The live server's episode and container are untouched.
      expect(await provider.listContainers({ episodeId: reset.episodeId })).toHaveLength(1);
      const step = await client.bash(reset.episodeId, 0, 'echo still here');
      expect(step.observation).toContain('still here');
    } finally {
      client.dispose();
    }
    await stopCli(first.child, 'SIGKILL');
    const next = await serveCli(['--server-id', serverId, '--no-state', '--no-trajectories']);
    expect(next.address).toMatch(/127\.0\.0\.1:\d+/);
    await stopCli(next.child, 'SIGTERM');
  });
});
