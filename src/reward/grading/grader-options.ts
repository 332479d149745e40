import type { SandboxLimits } from '../../sandbox/sandbox.js';
import type { InstallRerun } from '../eval-plan/install-policy.js';
import type { HarnessGeneration } from '../../languages/index.js';
import type { GradeReport, RewardRule } from '../report.js';

/** One grading's options: who asked (an episode, Evaluate, a CLI run) and what they want told. */
export interface GradeOptions {
  readonly episodeId?: string;
  readonly captureS?: number;
  /** Evaluate's call signal: a cancelled or timed-out caller stops the grading and frees its container. */
  readonly signal?: AbortSignal;
  /** Which verdict the reward follows for this grading; the grader's configured rule otherwise. */
  readonly rewardRule?: RewardRule;
  /** Told the test run's whole log (as kept: head and tail up to logLimitBytes), for per-instance logs. */
  readonly onTestLog?: (log: string) => void;
  /** False: canaries without copies of listed tests (the grader's second run on a task where copies interfere). */
  readonly mirrors?: false;
}

export type GradingNetwork = 'offline' | 'none';
export const GRADING_NETWORKS: readonly GradingNetwork[] = ['offline', 'none'];
export const GRADING_NETWORK_HELP =
  "grading containers' network, never a way out: offline (default: every address routed into loopback, where packets die, so a connect times out as to an unreachable host, as the harness's tests expect) or none (loopback only: connects fail at once)";

export interface GraderConfig {
  readonly limits: SandboxLimits;
  /** Hard limit on the test command inside the container. */
  readonly testTimeoutS: number;
  /** Bytes of test log kept (head + tail); the summary pytest prints is at the end. */
  readonly logLimitBytes: number;
  /** Gradings at once at most; more wait (Evaluate until its deadline, then RESOURCE_EXHAUSTED). */
  readonly maxGradings: number;
  /** When the plan's install is re-run after the patch (default when-needed). */
  readonly installRerun?: InstallRerun;
  /** Which verdict the reward follows (default swe-env). */
  readonly rewardRule?: RewardRule;
  /** Which swebench grading the harness verdict reproduces (default 5). */
  readonly harnessGeneration?: HarnessGeneration;
  /**
   * The grading containers' network (default 'offline'): none either way, but 'offline' routes every
   * address into loopback, where packets die, so tests waiting on an unreachable host time out as
   * under the harness instead of failing at once with "Network is unreachable".
   */
  readonly gradingNetwork?: GradingNetwork;
  /**
   * Whether the steps before the change's code runs (inventory, apply, reads, test patch, files in)
   * go through one process attached to the grading container, a fork each instead of an engine exec
   * of about 60 ms (default true; see channel-gate.ts for what may go through it).
   */
  readonly execChannel?: boolean;
  /** Told of every finished grading (metrics). */
  readonly onGraded?: (report: GradeReport) => void;
}
