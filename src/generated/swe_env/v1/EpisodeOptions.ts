// Original file: proto/swe_env/v1/swe_env.proto

import type { TruncationPolicy as _swe_env_v1_TruncationPolicy, TruncationPolicy__Output as _swe_env_v1_TruncationPolicy__Output } from '../../swe_env/v1/TruncationPolicy';

export interface EpisodeOptions {
  'maxSteps'?: (number);
  'commandTimeoutS'?: (number | string);
  'episodeTimeoutS'?: (number | string);
  'outputLimitBytes'?: (number);
  'truncation'?: (_swe_env_v1_TruncationPolicy);
  'idleTimeoutS'?: (number | string);
}

export interface EpisodeOptions__Output {
  'maxSteps': (number);
  'commandTimeoutS': (number);
  'episodeTimeoutS': (number);
  'outputLimitBytes': (number);
  'truncation': (_swe_env_v1_TruncationPolicy__Output);
  'idleTimeoutS': (number);
}
