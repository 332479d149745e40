import { parseAction } from '../tools.js';
import type { EpisodeCore } from './episode-core.js';
import { SUBMITTED_OBSERVATION, finish } from './grading.js';
import { episodeTimeSpent, timeLimitMessage, truncate, truncateAtStepLimit } from './limits.js';
import { runBash } from './run-command.js';
import type { Action, StepOutcome } from './types.js';

/**
 * Runs one tool call: the episode's time limit first, then the call (a malformed one is the
 * model's INVALID_ACTION, a submit grades and ends), then the step limit.
 */
export async function executeStep(core: EpisodeCore, index: number, action: Action): Promise<StepOutcome> {
  const base = { stepIndex: index, callId: action.callId };
  if (episodeTimeSpent(core.options, core.state.createdAt)) {
    return truncate(core, base, 'TRUNCATED_TIME', timeLimitMessage(core.options));
  }
  const parsed = parseAction(action.name, action.argumentsJson);
  let outcome: StepOutcome;
  switch (parsed.kind) {
    case 'invalid':
      outcome = {
        ...base,
        observation: parsed.message,
        reward: 0,
        terminated: false,
        truncated: false,
        status: 'INVALID_ACTION',
        exitCode: -1,
        info: {},
      };
      break;
    case 'submit':
      return finish(core, base, 'submitted', 'OK', SUBMITTED_OBSERVATION);
    case 'bash':
      outcome = await runBash(core, base, parsed.command);
      break;
  }
  if (outcome.status === 'INFRA_ERROR') return outcome;
  return truncateAtStepLimit(core, base, outcome);
}
