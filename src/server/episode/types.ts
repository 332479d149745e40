import type { Logger } from '../../common/logger.js';
import type { Grader } from '../../reward/grader.js';
import type { GradeReport } from '../../reward/report.js';
import type { EpisodeDefaults } from '../config.js';

export type StepStatus = 'OK' | 'COMMAND_TIMEOUT' | 'INVALID_ACTION' | 'TRUNCATED_STEPS' | 'TRUNCATED_TIME' | 'INFRA_ERROR';
export type EndReason =
  | 'submitted'
  | 'truncated_steps'
  | 'truncated_time'
  | 'closed'
  | 'expired'
  | 'infra_error'
  | 'sandbox_oom'
  | 'sandbox_disk_quota'
  | 'sandbox_unstoppable_command'
  | 'sandbox_shell_broken';

export interface StepOutcome {
  readonly stepIndex: number;
  readonly callId: string;
  readonly observation: string;
  readonly reward: number;
  readonly terminated: boolean;
  readonly truncated: boolean;
  readonly status: StepStatus;
  readonly exitCode: number;
  readonly info: Readonly<Record<string, unknown>>;
  readonly report?: GradeReport;
}

/** The fields every outcome of one step shares: which step, answering which tool call. */
export interface StepBase {
  readonly stepIndex: number;
  readonly callId: string;
}

export interface EpisodeSummary {
  readonly episodeId: string;
  readonly taskId: string;
  readonly steps: number;
  readonly reward: number;
  readonly terminated: boolean;
  readonly truncated: boolean;
  readonly endReason: EndReason | '';
  readonly durationS: number;
  readonly report?: GradeReport;
  readonly seed: number;
  readonly groupId: string;
  /** Why the container is not removed yet ('' once it is); the registry keeps retrying. */
  readonly containerRemovalPending: string;
}

export interface EpisodeDeps {
  readonly grader: Grader;
  readonly logger: Logger;
  readonly maxPatchBytes: number;
  readonly serverId: string;
  /** Writes the episode's record (restart survival); absent when the server keeps no state. */
  readonly persist?: (record: EpisodeRecord) => Promise<unknown>;
}

/** Where a forked episode came from: its parent and how many steps the parent had run then. */
export interface Lineage {
  readonly parentEpisodeId: string;
  readonly branchStep: number;
}

/** An episode's state as a restarted server read it back from its record (or a fork copied from its parent). */
export interface RestoredState {
  readonly createdAt: number;
  readonly lineage?: Lineage;
  readonly stepCount: number;
  readonly recent: readonly StepOutcome[];
  readonly cwd: string;
  readonly end?: EpisodeRecord['end'];
}

export interface Action {
  readonly name: string;
  readonly argumentsJson: string;
  readonly callId: string;
}

/** Who the episode is: fixed at reset, written into every record beside its state. */
export interface EpisodeIdentity {
  readonly id: string;
  readonly taskId: string;
  readonly serverId: string;
  readonly options: EpisodeDefaults;
  readonly seed: number;
  readonly groupId: string;
  readonly containerId: string;
  readonly pristineHead: string;
  /** Set for a fork's child: the parent episode and the step it branched at. */
  readonly lineage?: Lineage;
}

/** Bumped when a field changes meaning; a record of another version is not adopted. */
export const RECORD_VERSION = 1;

/** A step that had started when the record was written: after a restart its outcome is unknown. */
export interface InflightStep {
  readonly index: number;
  readonly name: string;
  readonly argumentsJson: string;
  readonly callId: string;
  readonly startedAt: number;
  /**
   * Set (and written) just before a bash command goes to the shell: the server's own word that it
   * was sent. A restart runs a command again only when this is absent; the container's journal,
   * which the agent can write, only ever answers how a sent command ended, never triggers a re-run.
   */
  readonly sent?: boolean;
}

/**
 * What a restarted server needs to go on with an episode: written as the episode changes, before
 * a step's answer goes out, so a retried Step finds the outcome its first call was given.
 */
export interface EpisodeRecord extends EpisodeIdentity {
  readonly version: typeof RECORD_VERSION;
  /** Epoch ms: the episode's wall clock runs on across a restart. */
  readonly createdAt: number;
  readonly stepCount: number;
  /** The retained outcomes (a retry targets the latest). */
  readonly recent: readonly StepOutcome[];
  /** The shell's working directory after the last step: a new shell starts there. */
  readonly cwd: string;
  readonly inflight?: InflightStep;
  /** The change a submit captured, kept while its grading runs so a restart can grade it again. */
  readonly captured?: { readonly patchBase64: string; readonly captureS: number };
  readonly end?: { readonly reason: EndReason; readonly reward: number; readonly report?: GradeReport; readonly endedAt: number };
  /** Set once the episode is retired (Close, expiry): the record is then its tombstone. */
  readonly retired?: {
    readonly reason: 'closed' | 'expired';
    readonly detail: string;
    readonly at: number;
    readonly summary: EpisodeSummary;
  };
}
