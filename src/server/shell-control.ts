import type { Grader } from '../reward/grader.js';
import { ShellSession } from '../sandbox/shell-session.js';
import type { Task } from '../tasks/task.js';

/**
 * The control for a shell an episode could not start again (a respawn after `exit`, a timeout or a
 * crash): the same start in a fresh container from the task's pristine image. When it works there,
 * the episode's own files broke it (an `activate` script that exits, a replaced `bash`), which is
 * the model's doing, not the environment's.
 */
export async function shellStartsOnPristineCopy(grader: Grader, task: Task, episodeId: string): Promise<boolean> {
  const box = await grader.openScratch(task, `control-${episodeId}`);
  try {
    const shell = await ShellSession.start(box, task.workdir);
    const probe = await shell.run('true', { timeoutMs: 30_000, outputLimitBytes: 1024 });
    await shell.close();
    return probe.exitCode === 0;
  } catch {
    return false;
  } finally {
    await box.remove().catch(() => undefined);
  }
}
