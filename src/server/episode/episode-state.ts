import type { GradeReport } from '../../reward/report.js';
import { RECORD_VERSION, type EpisodeIdentity, type EpisodeRecord, type InflightStep } from './types.js';
import type { EndReason, EpisodeSummary, RestoredState, StepOutcome } from './types.js';

/** Outcomes kept for retries: a client retries the step it has no answer for, the latest. */
export const RETAINED_OUTCOMES = 2;

/** A submit's captured change, kept while its grading runs so a restart can grade it again. */
export interface CapturedChange {
  readonly patchBase64: string;
  readonly captureS: number;
}

/** How the episode ended: what the record keeps and the summary reports. */
export type EpisodeEnd = NonNullable<EpisodeRecord['end']>;

/**
 * What an episode has done so far, as plain data: what its record persists and a restart rebuilds,
 * kept apart from the code that runs steps (and the sandbox, shell and trajectory it runs them on).
 */
export interface EpisodeState {
  readonly createdAt: number;
  /** Steps executed so far; only the last RETAINED_OUTCOMES outcomes are kept (a retry targets the latest). */
  stepCount: number;
  readonly recent: StepOutcome[];
  /** The shell's working directory after the last command (a restarted server's shell starts there). */
  cwd: string;
  /** The step under way, as the record has it (a restart finds it unanswered). */
  inflight: InflightStep | undefined;
  /** The change a grading under way works on (kept in the record so a restart can grade it again). */
  captured: CapturedChange | undefined;
  end: EpisodeEnd | undefined;
}

/** A new episode's state, or the one a restarted server read back from the record. */
export function initialState(workdir: string, restored?: RestoredState): EpisodeState {
  const end = restored?.end;
  return {
    createdAt: restored?.createdAt ?? Date.now(),
    stepCount: restored?.stepCount ?? 0,
    recent: [...(restored?.recent.slice(-RETAINED_OUTCOMES) ?? [])],
    cwd: restored?.cwd ?? workdir,
    inflight: undefined,
    captured: undefined,
    end: end ? { reason: end.reason, reward: end.reward, report: end.report, endedAt: end.endedAt } : undefined,
  };
}

/** What a fork's child starts from: its parent's state between steps, with the parent as lineage. */
export function forkedState(parent: EpisodeState, parentId: string, freshClock: boolean): RestoredState {
  return {
    createdAt: freshClock ? Date.now() : parent.createdAt,
    lineage: { parentEpisodeId: parentId, branchStep: parent.stepCount },
    stepCount: parent.stepCount,
    recent: [...parent.recent],
    cwd: parent.cwd,
  };
}

/** Counts a finished step and keeps its outcome for retries (the oldest goes). */
export function recordOutcome(state: EpisodeState, outcome: StepOutcome): void {
  state.stepCount += 1;
  state.recent.push(outcome);
  if (state.recent.length > RETAINED_OUTCOMES) state.recent.shift();
}

/** The kept outcome of a step that already ran, if it is still kept. */
export function recordedOutcome(state: EpisodeState, index: number): StepOutcome | undefined {
  return state.recent.find((o) => o.stepIndex === index);
}

export function endState(state: EpisodeState, reason: EndReason, reward: number, report: GradeReport | undefined): void {
  state.end = { reason, reward, report, endedAt: Date.now() };
}

/** Seconds from reset to the end (or to now, for an episode still running). */
export function durationS(state: EpisodeState): number {
  return ((state.end?.endedAt ?? Date.now()) - state.createdAt) / 1000;
}

/** What a restarted server needs to go on with this episode (see EpisodeRecord). */
export function recordOf(identity: EpisodeIdentity, state: EpisodeState, retired?: EpisodeRecord['retired']): EpisodeRecord {
  const { end } = state;
  return {
    version: RECORD_VERSION,
    id: identity.id,
    taskId: identity.taskId,
    serverId: identity.serverId,
    options: identity.options,
    seed: identity.seed,
    groupId: identity.groupId,
    containerId: identity.containerId,
    pristineHead: identity.pristineHead,
    ...(identity.lineage ? { lineage: identity.lineage } : {}),
    createdAt: state.createdAt,
    stepCount: state.stepCount,
    recent: [...state.recent],
    cwd: state.cwd,
    ...(state.inflight ? { inflight: state.inflight } : {}),
    ...(state.captured ? { captured: state.captured } : {}),
    ...(end
      ? {
          end: {
            reason: end.reason,
            reward: end.reward,
            ...(end.report ? { report: end.report } : {}),
            endedAt: end.endedAt ?? Date.now(),
          },
        }
      : {}),
    ...(retired ? { retired } : {}),
  };
}

/** The episode as Close reports it; `removalError` says why its container is not gone yet. */
export function summaryOf(identity: EpisodeIdentity, state: EpisodeState, removalError: string | undefined): EpisodeSummary {
  const last = state.recent.at(-1);
  const { end } = state;
  return {
    episodeId: identity.id,
    taskId: identity.taskId,
    steps: state.stepCount,
    reward: end?.reward ?? 0,
    terminated: last?.terminated ?? false,
    truncated: last?.truncated ?? false,
    endReason: end?.reason ?? '',
    durationS: durationS(state),
    ...(end?.report ? { report: end.report } : {}),
    seed: identity.seed,
    groupId: identity.groupId,
    containerRemovalPending: removalError ?? '',
  };
}

export type { EpisodeIdentity } from './types.js';
