// Original file: proto/swe_env/v1/swe_env.proto

import type { Action as _swe_env_v1_Action, Action__Output as _swe_env_v1_Action__Output } from '../../swe_env/v1/Action';
import type { AssistantTurn as _swe_env_v1_AssistantTurn, AssistantTurn__Output as _swe_env_v1_AssistantTurn__Output } from '../../swe_env/v1/AssistantTurn';

export interface StepRequest {
  'episodeId'?: (string);
  'stepIndex'?: (number);
  'action'?: (_swe_env_v1_Action | null);
  'assistant'?: (_swe_env_v1_AssistantTurn | null);
}

export interface StepRequest__Output {
  'episodeId': (string);
  'stepIndex': (number);
  'action': (_swe_env_v1_Action__Output | null);
  'assistant': (_swe_env_v1_AssistantTurn__Output | null);
}
