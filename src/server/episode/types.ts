import type { Logger } from '../../common/logger.js';
import type { Grader } from '../../reward/grader.js';
import type { GradeReport } from '../../reward/report.js';
import type { EpisodeRecord } from '../persistence/episode-record.js';

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
