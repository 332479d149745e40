import type { TopProcess } from '../sandbox.js';

/**
 * The rows of the engine's `top` with ps_args `-o pid,ppid,stat,args`, read the same on both engines.
 * Docker runs ps on the host: one column per field, host pids (the container's init is its
 * State.Pid). Podman runs it in the container's pid namespace and hands each line back as one
 * string: "1       0 Ss   bash -c ...", the init being pid 1. A row of Podman's is split on its
 * whitespace, and the init is State.Pid when some row has it (a host view), else pid 1.
 */
export function topProcesses(rows: readonly string[][], initHostPid: number): TopProcess[] {
  const parsed = rows.map((row) => {
    const fields = row.length >= 4 ? row : (row[0] ?? '').trim().split(/\s+/);
    return { pid: Number(fields[0]), ppid: Number(fields[1]), state: (fields[2] ?? '').charAt(0), command: fields.slice(3).join(' ') };
  });
  const hostView = parsed.some((p) => p.pid === initHostPid);
  return parsed.map((p) => ({ ...p, init: hostView ? p.pid === initHostPid : p.pid === 1 }));
}
