import type { AssistantTurn, TrajectoryEnd, TrajectoryStep } from '../../trajectories/trajectory-format.js';
import { MAX_ARGUMENT_DEPTH, jsonNestingDepth } from '../tools.js';
import { durationS, type EpisodeEnd, type EpisodeState } from './episode-state.js';
import type { Action, StepOutcome } from './types.js';

/** A step's line in the trajectory: the call as the model made it, and what it got back. */
export function stepLine(outcome: StepOutcome, action: Action, startedAt: number, assistant: AssistantTurn | undefined): TrajectoryStep {
  return {
    type: 'step',
    index: outcome.stepIndex,
    call_id: outcome.callId,
    tool: action.name,
    arguments: parsedArguments(action.argumentsJson),
    ...(assistant && (assistant.content || assistant.reasoning || assistant.model) ? { assistant } : {}),
    observation: outcome.observation,
    status: outcome.status,
    exit_code: outcome.exitCode,
    duration_s: (Date.now() - startedAt) / 1000,
    reward: outcome.reward,
    terminated: outcome.terminated,
    truncated: outcome.truncated,
    // The grading report goes in the end line, once.
    info: outcome.info,
    at: new Date().toISOString(),
  };
}

/** The trajectory's last line: how the episode ended, with the change the grading captured. */
export function endLine(state: EpisodeState, end: EpisodeEnd, modelPatch: string | undefined): TrajectoryEnd {
  return {
    type: 'end',
    reward: end.reward,
    resolved: end.report?.resolved ?? false,
    end_reason: end.reason,
    steps: state.stepCount,
    duration_s: durationS(state),
    ...(end.report ? { report: end.report } : {}),
    ...(modelPatch !== undefined ? { model_patch: modelPatch } : {}),
    ended_at: new Date(end.endedAt ?? Date.now()).toISOString(),
  };
}

/** The call's arguments as JSON when they are; too deep to serialise again safely (or not JSON): the raw text. */
function parsedArguments(argumentsJson: string): unknown {
  if (jsonNestingDepth(argumentsJson, MAX_ARGUMENT_DEPTH) > MAX_ARGUMENT_DEPTH) return argumentsJson;
  try {
    return JSON.parse(argumentsJson);
  } catch {
    return argumentsJson;
  }
}
