import type { EvalPlan } from './eval-plan/plan.js';
import type { HarnessVerdict } from './harness/verdict.js';
import type { ListedResult, Resolution } from './verdict.js';
import type { ReportFinding } from './findings.js';

/** The plan's install step after the patch: whether it ran, why, and what it cost. */
export interface InstallRun {
  ran: boolean;
  reason: string;
  exitCode: number;
  seconds: number;
  outputTail: string;
}

/** Which verdict the reward follows: swe-env's (strict; the default for episodes) or the harness's. */
export type RewardRule = 'swe-env' | 'harness';
export const REWARD_RULES: readonly RewardRule[] = ['swe-env', 'harness'];

export interface Durations {
  captureS: number;
  containerStartS: number;
  patchS: number;
  testRunS: number;
  /** The plan's eval commands, install step after the patch and steps after the test patch (0 when nothing ran). */
  installS: number;
  totalS: number;
}

/** What grading found; mirrors swe_env.v1.GradeReport. */
export interface GradeReport {
  taskId: string;
  resolved: boolean;
  reward: number;
  resolution: Resolution;
  /** The environment failed: the reward means nothing and the sample should be masked. */
  infraError: boolean;
  error: string;
  patchEmpty: boolean;
  patchApplied: boolean;
  patchApplyMethod: string;
  patchBytes: number;
  failToPass: ListedResult[];
  passToPass: ListedResult[];
  testExitCode: number;
  testTimedOut: boolean;
  testCommand: string;
  logTail: string;
  droppedFiles: string[];
  durations: Durations;
  /** 'recorder': outcomes from swe-env's pytest plugin, checked against the log; 'log': the log alone. */
  resultsSource: string;
  /** Why the run was not trusted; any flag means not resolved. */
  integrityFlags: string[];
  /** What the code under test did that researchers want to know (network, git, runner internals); never scored. */
  auditFlags: string[];
  /** Every flag above as data: its kind in the table of findings, family, severity and label. */
  findings: ReportFinding[];
  /** Canary tests put among the hidden tests (their outcomes are checked, never graded). */
  canaries: number;
  /** What the change reaches into besides the code under repair; reported, never scored. */
  patchWarnings: string[];
  /** What ran around the tests (shared with the official harness). */
  plan?: EvalPlan;
  install?: InstallRun;
  /** The plan's steps after the test patch (a 5.x row's build steps, pins, exports), run before the tests. */
  afterTestPatch?: InstallRun;
  /** The official harness's verdict on the same run. */
  harness?: HarnessVerdict;
  /** Listed names no test of the run has, read from the log the harness's way ([100%], an inner pytest's). */
  harnessRead: string[];
  rewardRule: RewardRule;
  /** The grading container's network: 'offline' (every address routed into loopback) or 'none: why'. */
  gradingNetwork: string;
}

export function emptyDurations(): Durations {
  return { captureS: 0, containerStartS: 0, patchS: 0, testRunS: 0, installS: 0, totalS: 0 };
}

export function baseReport(taskId: string): GradeReport {
  return {
    taskId,
    resolved: false,
    reward: 0,
    resolution: 'NO',
    infraError: false,
    error: '',
    patchEmpty: true,
    patchApplied: false,
    patchApplyMethod: '',
    patchBytes: 0,
    failToPass: [],
    passToPass: [],
    testExitCode: -1,
    testTimedOut: false,
    testCommand: '',
    resultsSource: '',
    integrityFlags: [],
    auditFlags: [],
    findings: [],
    canaries: 0,
    patchWarnings: [],
    logTail: '',
    droppedFiles: [],
    durations: emptyDurations(),
    rewardRule: 'swe-env',
    harnessRead: [],
    gradingNetwork: '',
  };
}
