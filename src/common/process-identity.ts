import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * A process named so that it can be told apart from a later one with the same pid: host, pid and
 * the kernel's start time of that pid. Lock files and container labels carry it, so whoever finds
 * them can tell whether their owner still lives.
 */
export function processIdentity(pid: number = process.pid): string {
  return `${hostname()}/${pid}/${processStart(pid) ?? ''}`;
}

/**
 * Whether the process an identity names is gone. Only a process on this host can be judged
 * (another host's are that host's business: never gone from here); a pid now held by a process
 * that started at another time is a new process, so the named one is gone.
 */
export function identityGone(identity: string): boolean {
  const [host, pidText, start] = identity.split('/');
  if (host !== hostname()) return false;
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  const now = processStart(pid);
  if (now === undefined) return !processAlive(pid);
  return start !== undefined && start !== '' && now !== start;
}

/** Field 22 of /proc/PID/stat (start time in clock ticks since boot), or undefined without it. */
function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count from its end.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the process an identity names runs on this host now (another host's cannot be told). */
export function identityAliveHere(identity: string): boolean {
  return identity.split('/')[0] === hostname() && !identityGone(identity);
}
