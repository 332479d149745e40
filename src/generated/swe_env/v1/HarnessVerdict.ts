// Original file: proto/swe_env/v1/swe_env.proto

import type { Resolution as _swe_env_v1_Resolution, Resolution__Output as _swe_env_v1_Resolution__Output } from '../../swe_env/v1/Resolution';

export interface HarnessVerdict {
  'generation'?: (string);
  'resolved'?: (boolean);
  'resolution'?: (_swe_env_v1_Resolution);
  'failToPassSuccess'?: (string)[];
  'failToPassFailure'?: (string)[];
  'passToPassSuccess'?: (string)[];
  'passToPassFailure'?: (string)[];
  'invalid'?: (string);
}

export interface HarnessVerdict__Output {
  'generation': (string);
  'resolved': (boolean);
  'resolution': (_swe_env_v1_Resolution__Output);
  'failToPassSuccess': (string)[];
  'failToPassFailure': (string)[];
  'passToPassSuccess': (string)[];
  'passToPassFailure': (string)[];
  'invalid': (string);
}
