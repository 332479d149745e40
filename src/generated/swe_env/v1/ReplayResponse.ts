// Original file: proto/swe_env/v1/swe_env.proto

import type { ReplayDivergence as _swe_env_v1_ReplayDivergence, ReplayDivergence__Output as _swe_env_v1_ReplayDivergence__Output } from '../../swe_env/v1/ReplayDivergence';

export interface ReplayResponse {
  'episodeId'?: (string);
  'steps'?: (number);
  'divergences'?: (_swe_env_v1_ReplayDivergence)[];
  'firstDivergence'?: (number);
  'durationS'?: (number | string);
}

export interface ReplayResponse__Output {
  'episodeId': (string);
  'steps': (number);
  'divergences': (_swe_env_v1_ReplayDivergence__Output)[];
  'firstDivergence': (number);
  'durationS': (number);
}
