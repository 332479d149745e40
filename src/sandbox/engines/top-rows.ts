import type { TopProcess } from '../sandbox.js';

/**
 * The rows of the engine's `top` with EngineDialect.processListArgs(), read the same on both
 * engines: pid, ppid, state and command line, one column each. Docker's come from ps on its host
 * (host pids: the container's init is its State.Pid); Podman's from its own reading of the
 * container's /proc (the container's pids: the init is pid 1). A row handed back as one string
 * (ps run in the container's pid namespace, as Podman does for ps-style flags) is split on its
 * whitespace. The init is State.Pid when some row has it (a host view), else pid 1.
 */
export function topProcesses(rows: readonly string[][], initHostPid: number): TopProcess[] {
  const parsed = rows.map((row) => {
    const fields = row.length >= 4 ? row : (row[0] ?? '').trim().split(/\s+/);
    return { pid: Number(fields[0]), ppid: Number(fields[1]), state: (fields[2] ?? '').charAt(0), command: fields.slice(3).join(' ') };
  });
  const hostView = parsed.some((p) => p.pid === initHostPid);
  return parsed.map((p) => ({ ...p, init: hostView ? p.pid === initHostPid : p.pid === 1 }));
}
