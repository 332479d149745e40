import type { EpisodeDefaults } from '../config.js';
import type { EpisodeCore } from './episode-core.js';
import { finish } from './grading.js';
import type { EndReason, StepBase, StepOutcome } from './types.js';

/** True once the episode's wall clock (which runs on across a restart) has used its time limit. */
export function episodeTimeSpent(options: EpisodeDefaults, createdAt: number): boolean {
  return Date.now() - createdAt >= options.episodeTimeoutS * 1000;
}

export function timeLimitMessage(options: EpisodeDefaults): string {
  return `The episode's time limit of ${options.episodeTimeoutS}s was reached.`;
}

/** A command's time limit: its own, cut to what is left of the episode's, at least a second. */
export function commandTimeoutMs(options: EpisodeDefaults, createdAt: number, startedAt: number): number {
  const remainingMs = options.episodeTimeoutS * 1000 - (startedAt - createdAt);
  return Math.max(1000, Math.min(options.commandTimeoutS * 1000, remainingMs));
}

/** After a step ran: the episode ends on its step limit (keeping the step's output), or the outcome stands. */
export async function truncateAtStepLimit(core: EpisodeCore, base: StepBase, outcome: StepOutcome): Promise<StepOutcome> {
  const { maxSteps } = core.options;
  if (base.stepIndex + 1 >= maxSteps) {
    return truncate(
      core,
      base,
      'TRUNCATED_STEPS',
      `${outcome.observation}\n[swe-env] The episode's limit of ${maxSteps} steps was reached.`,
      outcome,
    );
  }
  return outcome;
}

/** Ends the episode on a limit: grades the current state, or scores 0, as the options say. */
export async function truncate(
  core: EpisodeCore,
  base: StepBase,
  status: 'TRUNCATED_STEPS' | 'TRUNCATED_TIME',
  observation: string,
  last?: StepOutcome,
): Promise<StepOutcome> {
  const reason: EndReason = status === 'TRUNCATED_STEPS' ? 'truncated_steps' : 'truncated_time';
  if (core.options.truncation === 'zero') {
    core.end(reason, 0, undefined);
    await core.dispose();
    return {
      ...base,
      observation,
      reward: 0,
      terminated: false,
      truncated: true,
      status,
      exitCode: last?.exitCode ?? -1,
      info: { ...(last?.info ?? {}) },
    };
  }
  return finish(core, base, reason, status, observation, last);
}
