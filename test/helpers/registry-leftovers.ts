import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where the Docker engine looks for a registry's CA, one `host:port` directory per registry. */
export const CERTS_D = '/etc/docker/certs.d';
/** Names the test process that owns a registry's temp dir or certs.d entry (its pid). */
export const OWNER_FILE = 'swe-env-test-registry.owner';
const TEMP_PREFIX = 'swe-env-registry-';

/**
 * Cleans up what a test process left when it died without running `stop()` or its exit handler
 * (SIGKILL, or SIGTERM from an interrupted vitest). The registry itself dies with its parent
 * (parent-death signal), so only files can be left: temp dirs and certs.d entries whose owner is
 * gone. A registry still running under a dead owner (no setpriv) is killed by its recorded pid,
 * after checking that the pid is still a docker-registry.
 */
export async function sweepLeftovers(): Promise<void> {
  for (const name of safeList(tmpdir())) {
    if (!name.startsWith(TEMP_PREFIX)) continue;
    const dir = join(tmpdir(), name);
    if (ownerAlive(dir)) continue;
    killStrayRegistry(dir);
    rmSync(dir, { recursive: true, force: true });
  }
  for (const name of safeList(CERTS_D)) {
    if (!name.startsWith('127.0.0.1:')) continue;
    const dir = join(CERTS_D, name);
    if (existsSync(join(dir, OWNER_FILE)) && !ownerAlive(dir)) rmSync(dir, { recursive: true, force: true });
  }
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function readPid(path: string): number | undefined {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Alive means running: a zombie (ended, not reaped; this machine's PID 1 reaps nothing) is not. */
function pidAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** A directory without an owner file is one being created right now by someone: leave it. */
function ownerAlive(dir: string): boolean {
  const path = join(dir, OWNER_FILE);
  if (!existsSync(path)) return true;
  const pid = readPid(path);
  return pid !== undefined && pidAlive(pid);
}

function killStrayRegistry(dir: string): void {
  const pid = readPid(join(dir, 'registry.pid'));
  if (pid === undefined || !pidAlive(pid)) return;
  try {
    if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('docker-registry')) return;
    process.kill(pid, 'SIGKILL');
  } catch {
    // Gone in between: nothing to do.
  }
}

const atExit = new Map<ChildProcess, () => void>();
let exitHookInstalled = false;

/**
 * On a normal exit of the test process (also after an uncaught error) without `stop()`: kill the
 * registry and remove its files. Only synchronous work runs in an 'exit' handler, which these are.
 */
export function registerExitKill(child: ChildProcess, removeFiles: () => void): void {
  atExit.set(child, removeFiles);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const [registry, remove] of atExit) {
      registry.kill('SIGKILL');
      remove();
    }
  });
}

export function unregisterExitKill(child: ChildProcess): void {
  atExit.delete(child);
}
