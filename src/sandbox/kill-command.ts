import type { Sandbox } from './sandbox.js';
import { KILL_COMMAND_SCRIPT } from './shell-scripts.js';

/**
 * Kills every process of the shell's current command: those started at or after `startedAt` (the
 * uptime the shell announced before running it), but the shell itself. When the pid table is full
 * (a fork bomb), makes room for the killer first. True when nothing of the command is left.
 */
export async function killShellCommand(sandbox: Sandbox, shellPid: number, startedAt: string): Promise<boolean> {
  const argv = ['bash', '--noprofile', '--norc', '-c', KILL_COMMAND_SCRIPT, 'swe-env-kill', String(shellPid), startedAt];
  const attempt = async (): Promise<boolean> => {
    try {
      const result = await sandbox.exec(argv, { timeoutMs: 10_000, outputLimitBytes: 4096 });
      return result.exitCode === 0;
    } catch {
      return false;
    }
  };
  if (await attempt()) return true;
  const restore = await sandbox.raisePidsLimit(64).catch(() => undefined);
  try {
    return await attempt();
  } finally {
    await restore?.();
  }
}

/** Kills the shell itself (it did not come back after its command was killed). */
export async function killShell(sandbox: Sandbox, shellPid: number): Promise<void> {
  await sandbox.exec(['kill', '-KILL', String(shellPid)], { timeoutMs: 5_000, outputLimitBytes: 4096 }).catch(() => undefined);
}
