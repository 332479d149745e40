// Original file: proto/swe_env/v1/swe_env.proto

import type { GradeReport as _swe_env_v1_GradeReport, GradeReport__Output as _swe_env_v1_GradeReport__Output } from '../../swe_env/v1/GradeReport';

export interface EvaluateResponse {
  'report'?: (_swe_env_v1_GradeReport | null);
}

export interface EvaluateResponse__Output {
  'report': (_swe_env_v1_GradeReport__Output | null);
}
