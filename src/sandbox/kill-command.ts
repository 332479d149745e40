import type { Sandbox } from './sandbox.js';
import { KILL_COMMAND_SCRIPT } from './shell-scripts.js';

/** What a sandbox's fate says when a command could not be stopped at its time limit. */
export const UNSTOPPABLE_COMMAND = 'a command went on past its time limit and its processes could not be stopped inside the sandbox';

const HELPER_TIMEOUT_MS = 15_000;
const ATTEMPTS = 2;

/**
 * Kills every process of the shell's current command: those started at or after `sentAtMs` (epoch
 * ms: when the server sent the command, its own record, nothing the command can write), but the
 * shell itself. The killer runs beside the sandbox from its pristine image (Sandbox.runBeside), so
 * nothing the agent did to its own filesystem (a `bash` or `kill` on its PATH, a replaced
 * /bin/bash, a preloaded library) takes part. When even that does not report the command gone (the
 * agent's processes kill the helper, say), the engine stops the whole sandbox: the time limit holds,
 * and the sandbox's fate says why (UNSTOPPABLE_COMMAND). Throws only when the engine cannot kill the
 * sandbox either (the environment's failure).
 */
export async function killShellCommand(sandbox: Sandbox, shellPid: number, sentAtMs: number): Promise<void> {
  const argv = ['/bin/bash', '--noprofile', '--norc', '-c', KILL_COMMAND_SCRIPT, 'swe-env-kill', String(shellPid)];
  const answer = (line: string): string | undefined => {
    const match = /^uptime (\d+(?:\.\d+)?)$/.exec(line);
    if (!match) return undefined;
    // The helper's uptime was read before this line arrived: subtracting all the time since the
    // command was sent can only place its start earlier than it was, never later. Rounded down to
    // the kernel's 10 ms ticks, less one: a process's start time is its tick rounded down, so a
    // command that started within the tick of its sending (rounded up here, it read as later than
    // its own processes) must still count as started after it.
    const ticks = Math.floor((Number(match[1]) - (Date.now() - sentAtMs) / 1000) * 100) - 1;
    return (Math.max(0, ticks) / 100).toFixed(2);
  };
  if (await helperSucceeds(sandbox, argv, answer)) return;
  await sandbox.terminate(UNSTOPPABLE_COMMAND);
}

/**
 * Runs the helper up to ATTEMPTS times; true once it exits 0. A helper that cannot start counts as
 * failed too: the runtime's own first process enters the sandbox's process table, where the agent's
 * processes can kill it. The engine's kill that follows is the control: if the engine itself is
 * broken, that kill throws and the failure is the environment's.
 */
async function helperSucceeds(sandbox: Sandbox, argv: readonly string[], answer?: (line: string) => string | undefined): Promise<boolean> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const result = await sandbox.runBeside(argv, { timeoutMs: HELPER_TIMEOUT_MS, ...(answer ? { answer } : {}) }).catch(() => undefined);
    if (result?.exitCode === 0) return true;
  }
  return false;
}

/** Kills the shell itself (it did not come back after its command was killed); as above, from beside. */
export async function killShell(sandbox: Sandbox, shellPid: number): Promise<void> {
  const script =
    'kill -KILL "$1" 2>/dev/null; for (( i = 0; i < 100; i++ )); do { read -r s < "/proc/$1/stat"; } 2>/dev/null || exit 0; s=${s##*) }; [[ ${s:0:1} == [ZX] ]] && exit 0; kill -KILL "$1" 2>/dev/null; done; exit 1';
  if (await helperSucceeds(sandbox, ['/bin/bash', '--noprofile', '--norc', '-c', script, 'swe-env-kill-shell', String(shellPid)])) return;
  await sandbox.terminate(UNSTOPPABLE_COMMAND);
}
