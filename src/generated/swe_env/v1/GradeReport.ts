// Original file: proto/swe_env/v1/swe_env.proto

import type { Resolution as _swe_env_v1_Resolution, Resolution__Output as _swe_env_v1_Resolution__Output } from '../../swe_env/v1/Resolution';
import type { TestResult as _swe_env_v1_TestResult, TestResult__Output as _swe_env_v1_TestResult__Output } from '../../swe_env/v1/TestResult';
import type { Durations as _swe_env_v1_Durations, Durations__Output as _swe_env_v1_Durations__Output } from '../../swe_env/v1/Durations';
import type { EvalPlan as _swe_env_v1_EvalPlan, EvalPlan__Output as _swe_env_v1_EvalPlan__Output } from '../../swe_env/v1/EvalPlan';
import type { InstallRun as _swe_env_v1_InstallRun, InstallRun__Output as _swe_env_v1_InstallRun__Output } from '../../swe_env/v1/InstallRun';
import type { HarnessVerdict as _swe_env_v1_HarnessVerdict, HarnessVerdict__Output as _swe_env_v1_HarnessVerdict__Output } from '../../swe_env/v1/HarnessVerdict';
import type { Finding as _swe_env_v1_Finding, Finding__Output as _swe_env_v1_Finding__Output } from '../../swe_env/v1/Finding';

export interface GradeReport {
  'taskId'?: (string);
  'resolved'?: (boolean);
  'reward'?: (number | string);
  'resolution'?: (_swe_env_v1_Resolution);
  'infraError'?: (boolean);
  'error'?: (string);
  'patchEmpty'?: (boolean);
  'patchApplied'?: (boolean);
  'patchApplyMethod'?: (string);
  'patchBytes'?: (number);
  'failToPass'?: (_swe_env_v1_TestResult)[];
  'passToPass'?: (_swe_env_v1_TestResult)[];
  'testExitCode'?: (number);
  'testTimedOut'?: (boolean);
  'testCommand'?: (string);
  'logTail'?: (string);
  'droppedFiles'?: (string)[];
  'durations'?: (_swe_env_v1_Durations | null);
  'resultsSource'?: (string);
  'integrityFlags'?: (string)[];
  'patchWarnings'?: (string)[];
  'plan'?: (_swe_env_v1_EvalPlan | null);
  'install'?: (_swe_env_v1_InstallRun | null);
  'harness'?: (_swe_env_v1_HarnessVerdict | null);
  'rewardRule'?: (string);
  'harnessRead'?: (string)[];
  'auditFlags'?: (string)[];
  'canaries'?: (number);
  'afterTestPatch'?: (_swe_env_v1_InstallRun | null);
  'gradingNetwork'?: (string);
  'findings'?: (_swe_env_v1_Finding)[];
}

export interface GradeReport__Output {
  'taskId': (string);
  'resolved': (boolean);
  'reward': (number);
  'resolution': (_swe_env_v1_Resolution__Output);
  'infraError': (boolean);
  'error': (string);
  'patchEmpty': (boolean);
  'patchApplied': (boolean);
  'patchApplyMethod': (string);
  'patchBytes': (number);
  'failToPass': (_swe_env_v1_TestResult__Output)[];
  'passToPass': (_swe_env_v1_TestResult__Output)[];
  'testExitCode': (number);
  'testTimedOut': (boolean);
  'testCommand': (string);
  'logTail': (string);
  'droppedFiles': (string)[];
  'durations': (_swe_env_v1_Durations__Output | null);
  'resultsSource': (string);
  'integrityFlags': (string)[];
  'patchWarnings': (string)[];
  'plan': (_swe_env_v1_EvalPlan__Output | null);
  'install': (_swe_env_v1_InstallRun__Output | null);
  'harness': (_swe_env_v1_HarnessVerdict__Output | null);
  'rewardRule': (string);
  'harnessRead': (string)[];
  'auditFlags': (string)[];
  'canaries': (number);
  'afterTestPatch': (_swe_env_v1_InstallRun__Output | null);
  'gradingNetwork': (string);
  'findings': (_swe_env_v1_Finding__Output)[];
}
