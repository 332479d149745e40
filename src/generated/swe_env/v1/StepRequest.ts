// Original file: proto/swe_env/v1/swe_env.proto

import type { Action as _swe_env_v1_Action, Action__Output as _swe_env_v1_Action__Output } from '../../swe_env/v1/Action';

export interface StepRequest {
  'episodeId'?: (string);
  'stepIndex'?: (number);
  'action'?: (_swe_env_v1_Action | null);
}

export interface StepRequest__Output {
  'episodeId': (string);
  'stepIndex': (number);
  'action': (_swe_env_v1_Action__Output | null);
}
