// Original file: proto/swe_env/v1/swe_env.proto

import type { ImageState as _swe_env_v1_ImageState, ImageState__Output as _swe_env_v1_ImageState__Output } from '../../swe_env/v1/ImageState';

export interface PrefetchResponse {
  'images'?: (_swe_env_v1_ImageState)[];
  'unknownTaskIds'?: (string)[];
}

export interface PrefetchResponse__Output {
  'images': (_swe_env_v1_ImageState__Output)[];
  'unknownTaskIds': (string)[];
}
