import { mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FailedPreconditionError } from '../common/errors.js';
import { identityAliveHere, processIdentity } from '../common/process-identity.js';

/**
 * A pid-file lock naming its holder by process identity (host/pid/start time). Only a live holder
 * on this host refuses: a file left by a process that is gone is taken over, and so is one of
 * another host (a pod rescheduled onto a new node cannot ask the old one) or of this very pid (a
 * container restarted with the same pid, or a test restarting a server in-process).
 */
async function lockFile(file: string, refuse: (holderPid: string) => string): Promise<() => Promise<void>> {
  const mine = processIdentity();
  try {
    await writeFile(file, mine, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const holder = (await readFile(file, 'utf8').catch(() => '')).trim();
    const holderPid = holder.split('/')[1] ?? '';
    if (holder !== mine && holderPid !== String(process.pid) && identityAliveHere(holder)) {
      throw new FailedPreconditionError(refuse(holderPid));
    }
    await writeFile(file, mine, { mode: 0o600 });
  }
  return async () => {
    const holder = (await readFile(file, 'utf8').catch(() => '')).trim();
    if (holder === mine) await unlink(file).catch(() => undefined);
  };
}

/**
 * One server per server id on this host, with or without episode records: a second server with
 * the id would take the first one's containers for an earlier run's and remove or adopt them.
 * The locks live in SWE_ENV_RUN_DIR, else /run/swe-env (root), else a per-user temporary folder.
 */
export async function lockServerId(serverId: string): Promise<() => Promise<void>> {
  const dir = join(runDir(), 'server-ids');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return lockFile(
    join(dir, `${encodeURIComponent(serverId)}.lock`),
    (pid) =>
      `another swe-env server (pid ${pid}) is running with server id '${serverId}' on this host: give this one its own --server-id (each server id owns its containers), or stop that server first`,
  );
}

/** One server per state directory (two hosts sharing one directory included). */
export async function lockStateDir(serverDir: string, serverId: string): Promise<() => Promise<void>> {
  return lockFile(
    join(serverDir, 'server.lock'),
    (pid) =>
      `another swe-env server (pid ${pid}) runs with server id ${serverId} and state directory ${serverDir}; give this one its own --server-id or --state-dir`,
  );
}

function runDir(): string {
  const env = process.env['SWE_ENV_RUN_DIR'];
  if (env) return env;
  if (process.getuid?.() === 0) return '/run/swe-env';
  return join(process.env['XDG_RUNTIME_DIR'] || join(tmpdir(), `swe-env-${process.getuid?.() ?? 'user'}`), 'swe-env');
}
