import { parseAction } from '../tools.js';
import type { InflightStep } from '../persistence/episode-record.js';
import type { EpisodeCore } from './episode-core.js';
import type { CapturedChange } from './episode-state.js';
import { executeStep } from './execute-step.js';
import { infraFailure } from './failures.js';
import { SUBMITTED_OBSERVATION, finish } from './grading.js';
import { recoverCommand } from './recover-command.js';
import type { Action, StepOutcome } from './types.js';

/**
 * After a restart, how the step that was running when the server died is answered. A submit whose
 * change was captured is graded again from that change (grading is repeatable); a submit not yet
 * captured is run again (capture only reads the container). A bash command is never run twice:
 * the container's command journal says how it ended (waited for while it still runs), or that it
 * never started (it runs now); when the journal cannot tell, the step answers INFRA_ERROR.
 */
export function resumedStep(
  core: EpisodeCore,
  step: InflightStep,
  captured: CapturedChange | undefined,
  containerAlive: boolean,
): { action: Action; run: () => Promise<StepOutcome> } {
  const action: Action = { name: step.name, argumentsJson: step.argumentsJson, callId: step.callId };
  const submit = parseAction(step.name, step.argumentsJson).kind === 'submit';
  const base = { stepIndex: step.index, callId: step.callId };
  if (submit && captured) {
    core.state.captured = captured;
    return { action, run: () => finish(core, base, 'submitted', 'OK', SUBMITTED_OBSERVATION, undefined, captured) };
  }
  if (submit && containerAlive) return { action, run: () => executeStep(core, step.index, action) };
  if (!submit && containerAlive) return { action, run: () => recoverCommand(core, step, action) };
  const message = `the server restarted while step ${step.index} ran; its output was lost and its command may have run partly`;
  return { action, run: () => infraFailure(core, base, new Error(message)) };
}
