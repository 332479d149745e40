// Original file: proto/swe_env/v1/swe_env.proto

import type { EpisodeOptions as _swe_env_v1_EpisodeOptions, EpisodeOptions__Output as _swe_env_v1_EpisodeOptions__Output } from '../../swe_env/v1/EpisodeOptions';

export interface ReplayRequest {
  'sourceEpisodeId'?: (string);
  'trajectoryJsonl'?: (string);
  'steps'?: (number);
  'episodeId'?: (string);
  'options'?: (_swe_env_v1_EpisodeOptions | null);
}

export interface ReplayRequest__Output {
  'sourceEpisodeId': (string);
  'trajectoryJsonl': (string);
  'steps': (number);
  'episodeId': (string);
  'options': (_swe_env_v1_EpisodeOptions__Output | null);
}
