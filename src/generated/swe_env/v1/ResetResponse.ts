// Original file: proto/swe_env/v1/swe_env.proto

import type { ToolSchema as _swe_env_v1_ToolSchema, ToolSchema__Output as _swe_env_v1_ToolSchema__Output } from '../../swe_env/v1/ToolSchema';
import type { Struct as _google_protobuf_Struct, Struct__Output as _google_protobuf_Struct__Output } from '../../google/protobuf/Struct';
import type { EffectiveOptions as _swe_env_v1_EffectiveOptions, EffectiveOptions__Output as _swe_env_v1_EffectiveOptions__Output } from '../../swe_env/v1/EffectiveOptions';

export interface ResetResponse {
  'episodeId'?: (string);
  'observation'?: (string);
  'tools'?: (_swe_env_v1_ToolSchema)[];
  'info'?: (_google_protobuf_Struct | null);
  'options'?: (_swe_env_v1_EffectiveOptions | null);
}

export interface ResetResponse__Output {
  'episodeId': (string);
  'observation': (string);
  'tools': (_swe_env_v1_ToolSchema__Output)[];
  'info': (_google_protobuf_Struct__Output | null);
  'options': (_swe_env_v1_EffectiveOptions__Output | null);
}
