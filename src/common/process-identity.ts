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
  const stat = procStat(pid);
  if (stat === undefined) return !processAlive(pid);
  // A zombie has ended (where PID 1 does not reap orphans, it stays one until the host's end).
  if (stat.state === 'Z' || stat.state === 'X') return true;
  return start !== undefined && start !== '' && stat.start !== start;
}

/** The start time of the pid (field 22 of /proc/PID/stat, clock ticks since boot), or undefined without procfs. */
function processStart(pid: number): string | undefined {
  return procStat(pid)?.start;
}

/** State (field 3) and start time (field 22) of /proc/PID/stat, or undefined without it. */
function procStat(pid: number): { state: string; start: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count from its end.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', start: fields[19] ?? '' };
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
