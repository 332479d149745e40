// Original file: proto/swe_env/v1/swe_env.proto

import type { EpisodeOptions as _swe_env_v1_EpisodeOptions, EpisodeOptions__Output as _swe_env_v1_EpisodeOptions__Output } from '../../swe_env/v1/EpisodeOptions';
import type { Long } from '@grpc/proto-loader';

export interface ResetRequest {
  'taskId'?: (string);
  'episodeId'?: (string);
  'seed'?: (number | string | Long);
  'options'?: (_swe_env_v1_EpisodeOptions | null);
  'groupId'?: (string);
}

export interface ResetRequest__Output {
  'taskId': (string);
  'episodeId': (string);
  'seed': (number);
  'options': (_swe_env_v1_EpisodeOptions__Output | null);
  'groupId': (string);
}
