import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../../src/common/paths.js';

const CLI = join(packageRoot(), 'dist', 'src', 'cli', 'main.js');

/** Every server process a test file started, for its afterAll to kill what is still running. */
export const cliServers: ChildProcess[] = [];

/**
 * `swe-env serve` as operators run it: its own process (so a test can SIGKILL it), on a free
 * loopback port; resolves with its address once it listens.
 */
export function serveCli(
  args: readonly string[],
  stderr: 'inherit' | 'ignore' = 'inherit',
): Promise<{ child: ChildProcess; address: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('node', [CLI, 'serve', '--port', '0', '--log-level', 'warn', ...args], { stdio: ['ignore', 'pipe', stderr] });
    cliServers.push(child);
    child.stdout.once('data', (d: Buffer) => {
      const match = /listening on (\S+)/.exec(d.toString());
      if (match) resolve({ child, address: match[1]! });
      else reject(new Error(`unexpected output: ${d.toString()}`));
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
}

/** Signals a server process and waits for it to exit. */
export async function stopCli(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill(signal);
  await exited;
}

/** Kills every server process still running (afterAll). */
export function killCliServers(): void {
  for (const c of cliServers) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
}
