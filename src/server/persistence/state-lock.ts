import { hostname } from 'node:os';
import { readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FailedPreconditionError } from '../../common/errors.js';

/**
 * One server per state directory: two servers with one server id would adopt, drive and remove
 * each other's containers. The lock is a pid file; one left by a process that is gone (or by this
 * very pid, a container restarted with the same pid) is taken over.
 */
export async function lockStateDir(serverDir: string, serverId: string): Promise<() => Promise<void>> {
  const file = join(serverDir, 'server.lock');
  const mine = JSON.stringify({ pid: process.pid, host: hostname(), at: new Date().toISOString() });
  try {
    await writeFile(file, mine, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const holder = await readHolder(file);
    if (holder && holder.host === hostname() && holder.pid !== process.pid && alive(holder.pid)) {
      throw new FailedPreconditionError(
        `another swe-env server (pid ${holder.pid}) runs with server id ${serverId} and state directory ${serverDir}; give this one its own --server-id or --state-dir`,
      );
    }
    await writeFile(file, mine, { mode: 0o600 });
  }
  return async () => {
    const holder = await readHolder(file);
    if (holder?.pid === process.pid) await unlink(file).catch(() => undefined);
  };
}

async function readHolder(file: string): Promise<{ pid: number; host: string } | undefined> {
  try {
    const value = JSON.parse(await readFile(file, 'utf8')) as { pid?: unknown; host?: unknown };
    return typeof value.pid === 'number' && typeof value.host === 'string' ? { pid: value.pid, host: value.host } : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
