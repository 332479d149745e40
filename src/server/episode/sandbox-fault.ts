import { messageOf } from '../../common/errors.js';
import type { Grader } from '../../reward/grader.js';
import type { Sandbox } from '../../sandbox/sandbox.js';
import type { Task } from '../../tasks/task.js';
import { shellStartsOnPristineCopy } from '../shell-control.js';
import type { EndReason } from './types.js';

/** A sandbox failure that is the model's doing: how the episode ends, and what the step says. */
export interface OwnFault {
  readonly reason: EndReason;
  readonly message: string;
  readonly exitCode: number;
}

/** Why a dead sandbox is the model's doing (its own memory limit, its disk quota), if it is. */
export async function ownFault(sandbox: Sandbox): Promise<OwnFault | undefined> {
  // Just after a kill the engine can still show the container running: rather than read that as
  // alive, wait a moment for its death report (the disk watchdog's record is there at once).
  const running = await sandbox.isRunning().catch(() => true);
  const fate = await sandbox.fate(running ? 2000 : undefined);
  if (fate?.terminated) {
    return { reason: 'sandbox_unstoppable_command', message: `The sandbox was stopped: ${fate.terminated}.`, exitCode: 137 };
  }
  if (fate?.diskOverrun) {
    const { usedBytes, limitBytes } = fate.diskOverrun;
    return {
      reason: 'sandbox_disk_quota',
      message: `The sandbox was stopped for using too much disk: ${mib(usedBytes)} MiB written, over its ${mib(limitBytes)} MiB quota.`,
      exitCode: fate.exitCode ?? 137,
    };
  }
  if (fate?.ownOutOfMemory) {
    return {
      reason: 'sandbox_oom',
      message: 'The sandbox ran out of memory and was killed: the commands exhausted its memory limit and took its init process with them.',
      exitCode: fate.exitCode ?? 137,
    };
  }
  return undefined;
}

/** A shell that cannot start in a live sandbox but starts in a pristine copy (the control): the episode's doing. */
export async function shellBrokenByEpisode(
  sandbox: Sandbox,
  grader: Grader,
  task: Task,
  episodeId: string,
  error: unknown,
): Promise<boolean> {
  if (!/the sandbox shell (exited before it was ready|did not start in time)/.test(messageOf(error))) return false;
  if (!(await sandbox.isRunning().catch(() => false))) return false;
  return shellStartsOnPristineCopy(grader, task, episodeId).catch(() => false);
}

function mib(bytes: number): number {
  return Math.round(bytes / 1024 ** 2);
}
