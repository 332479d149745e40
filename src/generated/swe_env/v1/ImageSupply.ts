// Original file: proto/swe_env/v1/swe_env.proto

import type { ImageState as _swe_env_v1_ImageState, ImageState__Output as _swe_env_v1_ImageState__Output } from '../../swe_env/v1/ImageState';
import type { Long } from '@grpc/proto-loader';

export interface ImageSupply {
  'pullsRunning'?: (number);
  'pullsQueued'?: (number);
  'maxPulls'?: (number);
  'pullBytesDone'?: (number | string | Long);
  'pullBytesTotal'?: (number | string | Long);
  'pulls'?: (_swe_env_v1_ImageState)[];
  'cacheBytes'?: (number | string | Long);
  'cacheHighBytes'?: (number | string | Long);
  'cacheLowBytes'?: (number | string | Long);
  'evictions'?: (number | string | Long);
  'pinnedImages'?: (number);
  'pullsDone'?: (number | string | Long);
}

export interface ImageSupply__Output {
  'pullsRunning': (number);
  'pullsQueued': (number);
  'maxPulls': (number);
  'pullBytesDone': (number);
  'pullBytesTotal': (number);
  'pulls': (_swe_env_v1_ImageState__Output)[];
  'cacheBytes': (number);
  'cacheHighBytes': (number);
  'cacheLowBytes': (number);
  'evictions': (number);
  'pinnedImages': (number);
  'pullsDone': (number);
}
