import type { Sandbox } from '../../sandbox/sandbox.js';

/** How long a signal-killed step waits for the engine to say whether the whole container died. */
const CONTAINER_SETTLE_MS = 3000;
/** How often a grading checks that its container is not frozen (`docker pause`, a stuck freezer). */
const PAUSE_CHECK_MS = 2000;

/**
 * The patch's own code decided the grading's end (its disk quota, an install that would not end,
 * changes outside the repository, a step it broke that the pristine repository passes): reward 0
 * with the reason, never INFRA_ERROR.
 */
export class ModelFault extends Error {}

/**
 * Runs a step of the grading with a watch on its container: a paused container would hold the
 * submit for the whole test timeout and a minute, reading as a timeout (the model's 0). Nothing
 * inside can pause it, so a pause is the environment's failure, reported as soon as it is seen.
 */
export async function watchingPause<T>(
  sandbox: Sandbox,
  signal: AbortSignal | undefined,
  step: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const paused = new AbortController();
  const timer = setInterval(() => {
    sandbox.isPaused().then(
      (yes) => {
        if (yes)
          paused.abort(
            new Error('the grading container was paused from outside (docker pause or a frozen cgroup); nothing inside can pause it'),
          );
      },
      () => undefined,
    );
  }, PAUSE_CHECK_MS);
  try {
    const result = await step(signal ? AbortSignal.any([signal, paused.signal]) : paused.signal);
    if (paused.signal.aborted) throw paused.signal.reason;
    return result;
  } finally {
    clearInterval(timer);
  }
}

/**
 * The grading container must still be up after a step: the patch's code cannot stop it (its PID 1
 * ignores every signal from inside), so a container that is gone was killed from outside, by an
 * engine restart or by the host running out of memory, and the grading is an infrastructure failure.
 */
export async function assertAlive(sandbox: Sandbox, during: string, exitCode: number): Promise<void> {
  // A process killed by a signal (exit >= 128, or no exit code) may be the first sign of the whole
  // container going down: the engine marks it stopped a moment after its processes die.
  const settleMs = exitCode >= 128 || exitCode < 0 ? CONTAINER_SETTLE_MS : 0;
  const until = Date.now() + settleMs;
  for (;;) {
    if (!(await sandbox.isRunning())) {
      const overrun = (await sandbox.fate())?.diskOverrun;
      if (overrun) {
        throw new ModelFault(
          `the grading container was stopped during ${during} for writing ${Math.round(overrun.usedBytes / 1024 ** 2)} MiB to disk, over its ${Math.round(overrun.limitBytes / 1024 ** 2)} MiB quota`,
        );
      }
      throw new Error(`the grading container stopped during ${during} (killed from outside, an engine restart or the host out of memory)`);
    }
    if (Date.now() >= until) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * What a failed grading step means once its container is looked at: a step that failed because
 * the container under it died (a copy, an exec) says so, whatever the step was; a container the
 * disk watchdog stopped is the patch's own fault. Anything else is the step's own error.
 */
export async function explainStepFailure(sandbox: Sandbox, error: unknown): Promise<unknown> {
  if (error instanceof ModelFault) return error;
  const running = await sandbox.isRunning().catch(() => true);
  if (running) return error;
  const overrun = (await sandbox.fate().catch(() => undefined))?.diskOverrun;
  if (overrun) {
    return new ModelFault(
      `the grading container was stopped for writing ${Math.round(overrun.usedBytes / 1024 ** 2)} MiB to disk, over its ${Math.round(overrun.limitBytes / 1024 ** 2)} MiB quota`,
    );
  }
  const detail = error instanceof Error ? error.message : String(error);
  return new Error(
    `the grading container stopped (killed from outside, an engine restart or the host out of memory); the step under way failed with: ${detail}`,
  );
}

export function seconds(fromMs: number): number {
  return Math.round(Date.now() - fromMs) / 1000;
}
