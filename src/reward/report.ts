import type { ListedResult, Resolution } from './verdict.js';

export interface Durations {
  captureS: number;
  containerStartS: number;
  patchS: number;
  testRunS: number;
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
  /** What the change reaches into besides the code under repair; reported, never scored. */
  patchWarnings: string[];
}

export function emptyDurations(): Durations {
  return { captureS: 0, containerStartS: 0, patchS: 0, testRunS: 0, totalS: 0 };
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
    patchWarnings: [],
    logTail: '',
    droppedFiles: [],
    durations: emptyDurations(),
  };
}
