import { messageOf } from '../../common/errors.js';
import type { EpisodeCore } from './episode-core.js';
import { ownFault, shellBrokenByEpisode } from './sandbox-fault.js';
import type { StepBase, StepOutcome } from './types.js';

/** Close (or expiry) removed the sandbox under a running command: that, not an environment failure. */
export function closedDuringStep(core: EpisodeCore, base: StepBase): StepOutcome {
  return {
    ...base,
    observation: '[swe-env] The episode was closed while this command ran; the command was stopped.',
    reward: 0,
    terminated: false,
    truncated: true,
    status: 'OK',
    exitCode: -1,
    info: { end_reason: core.state.end?.reason ?? 'closed' },
  };
}

/**
 * The sandbox failed under a command. When the engine reports it died of its own memory limit
 * (the command exhausted it, with PID 1 made the OOM killer's choice), or the disk watchdog stopped
 * it for writing past its disk quota, that is the model's failure: reward 0 and a clear end, not a
 * masked INFRA_ERROR. So is a shell its own files keep from starting. Anything else is the environment's.
 */
export async function sandboxFailure(core: EpisodeCore, base: StepBase, error: unknown): Promise<StepOutcome> {
  const { logger, grader } = core.deps;
  const own = await ownFault(core.box.sandbox);
  if (own) {
    logger.info({ episode: core.id, reason: own.reason }, 'sandbox ended by its own commands');
    core.end(own.reason, 0, undefined);
    await core.dispose();
    return modelFailure(base, `[swe-env] ${own.message} The episode ends with reward 0.`, own.exitCode, own.reason);
  }
  if (await shellBrokenByEpisode(core.box.sandbox, grader, core.task, core.id, error)) {
    logger.info({ episode: core.id, err: error }, "the sandbox's own files keep its shell from starting");
    core.end('sandbox_shell_broken', 0, undefined);
    await core.dispose();
    const observation = `[swe-env] A new shell could not be started in this sandbox (${messageOf(error)}), while one starts in a pristine copy of the task: the sandbox's own files keep it from starting (a start-up script that exits, a replaced bash). The episode ends with reward 0.`;
    return modelFailure(base, observation, -1, 'sandbox_shell_broken');
  }
  logger.error({ err: error, episode: core.id }, 'bash step failed in the environment');
  return infraFailure(core, base, error);
}

/** The environment failed: the episode ends, and the step says INFRA_ERROR (mask the sample). */
export async function infraFailure(core: EpisodeCore, base: StepBase, error: unknown): Promise<StepOutcome> {
  core.end('infra_error', 0, undefined);
  // Never throws: this is the answer of last resort for a failed step.
  await core.dispose().catch((disposeError: unknown) => core.deps.logger.error({ err: disposeError, episode: core.id }, 'dispose failed'));
  return infraOutcome(base, `[swe-env] The environment failed: ${messageOf(error)}`, { infra_error: messageOf(error) });
}

/** The step a restarted server answers for an episode whose container it found gone. */
export function lostOutcome(base: StepBase, message: string): StepOutcome {
  return infraOutcome(base, `[swe-env] The environment failed: ${message}`, { infra_error: message, server_restarted: true });
}

function infraOutcome(base: StepBase, observation: string, info: Record<string, unknown>): StepOutcome {
  return { ...base, observation, reward: 0, terminated: false, truncated: true, status: 'INFRA_ERROR', exitCode: -1, info };
}

/** The sandbox's own doing ended the episode: reward 0, terminated, with the reason. */
function modelFailure(base: StepBase, observation: string, exitCode: number, reason: string): StepOutcome {
  return { ...base, observation, reward: 0, terminated: true, truncated: false, status: 'OK', exitCode, info: { end_reason: reason } };
}
