// Original file: proto/swe_env/v1/swe_env.proto

import type { TestStatus as _swe_env_v1_TestStatus, TestStatus__Output as _swe_env_v1_TestStatus__Output } from '../../swe_env/v1/TestStatus';

export interface TestResult {
  'name'?: (string);
  'status'?: (_swe_env_v1_TestStatus);
}

export interface TestResult__Output {
  'name': (string);
  'status': (_swe_env_v1_TestStatus__Output);
}
