// Original file: proto/swe_env/v1/swe_env.proto

import type { StepStatus as _swe_env_v1_StepStatus, StepStatus__Output as _swe_env_v1_StepStatus__Output } from '../../swe_env/v1/StepStatus';
import type { Struct as _google_protobuf_Struct, Struct__Output as _google_protobuf_Struct__Output } from '../../google/protobuf/Struct';
import type { GradeReport as _swe_env_v1_GradeReport, GradeReport__Output as _swe_env_v1_GradeReport__Output } from '../../swe_env/v1/GradeReport';

export interface StepResponse {
  'observation'?: (string);
  'reward'?: (number | string);
  'terminated'?: (boolean);
  'truncated'?: (boolean);
  'status'?: (_swe_env_v1_StepStatus);
  'stepIndex'?: (number);
  'callId'?: (string);
  'exitCode'?: (number);
  'info'?: (_google_protobuf_Struct | null);
  'report'?: (_swe_env_v1_GradeReport | null);
}

export interface StepResponse__Output {
  'observation': (string);
  'reward': (number);
  'terminated': (boolean);
  'truncated': (boolean);
  'status': (_swe_env_v1_StepStatus__Output);
  'stepIndex': (number);
  'callId': (string);
  'exitCode': (number);
  'info': (_google_protobuf_Struct__Output | null);
  'report': (_swe_env_v1_GradeReport__Output | null);
}
