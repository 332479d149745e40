// Original file: proto/swe_env/v1/swe_env.proto

import type { EpisodeSummary as _swe_env_v1_EpisodeSummary, EpisodeSummary__Output as _swe_env_v1_EpisodeSummary__Output } from '../../swe_env/v1/EpisodeSummary';

export interface CloseResponse {
  'summary'?: (_swe_env_v1_EpisodeSummary | null);
}

export interface CloseResponse__Output {
  'summary': (_swe_env_v1_EpisodeSummary__Output | null);
}
