import type { TopProcess } from '../sandbox.js';

/** SIGKILL's bit in ps's PENDING mask (signal 9: bit 8). */
const SIGKILL_BIT = 1n << 8n;

/**
 * The rows of the engine's `top` with EngineDialect.processListArgs(), read the same on both
 * engines: pid, ppid, state, (Docker's) pending signals and command line, one column each.
 * Docker's come from ps on its host (host pids: the container's init is its State.Pid); Podman's
 * from its own reading of the container's /proc (the container's pids: the init is pid 1). A row
 * handed back as one string (ps run in the container's pid namespace, as Podman does for ps-style
 * flags) is split on its whitespace. The init is State.Pid when some row has it (a host view), else
 * pid 1. The columns are found by the titles; without a PENDING column nothing is said of it.
 */
export function topProcesses(rows: readonly string[][], initHostPid: number, titles: readonly string[] = []): TopProcess[] {
  const pendingAt = titles.length > 1 ? titles.findIndex((t) => t.trim().toUpperCase() === 'PENDING') : -1;
  const commandAt = pendingAt === 3 ? 4 : 3;
  const parsed = rows.map((row) => {
    const fields = row.length > commandAt ? row : (row[0] ?? '').trim().split(/\s+/);
    const pending = pendingAt === 3 ? killPending(fields[3]) : undefined;
    return {
      pid: Number(fields[0]),
      ppid: Number(fields[1]),
      state: (fields[2] ?? '').charAt(0),
      ...(pending === undefined ? {} : { killPending: pending }),
      command: fields.slice(commandAt).join(' '),
    };
  });
  const hostView = parsed.some((p) => p.pid === initHostPid);
  return parsed.map((p) => ({ ...p, init: hostView ? p.pid === initHostPid : p.pid === 1 }));
}

/** Whether ps's hexadecimal PENDING mask holds SIGKILL; undefined when it is not such a mask. */
function killPending(mask: string | undefined): boolean | undefined {
  if (mask === undefined || !/^[0-9a-fA-F]{1,32}$/.test(mask)) return undefined;
  return (BigInt(`0x${mask}`) & SIGKILL_BIT) !== 0n;
}
