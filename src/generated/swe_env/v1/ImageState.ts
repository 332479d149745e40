// Original file: proto/swe_env/v1/swe_env.proto

import type { ImagePhase as _swe_env_v1_ImagePhase, ImagePhase__Output as _swe_env_v1_ImagePhase__Output } from '../../swe_env/v1/ImagePhase';
import type { Long } from '@grpc/proto-loader';

export interface ImageState {
  'image'?: (string);
  'taskIds'?: (string)[];
  'phase'?: (_swe_env_v1_ImagePhase);
  'error'?: (string);
  'bytesDone'?: (number | string | Long);
  'bytesTotal'?: (number | string | Long);
  'layersDone'?: (number);
  'layersTotal'?: (number);
  'attempt'?: (number);
}

export interface ImageState__Output {
  'image': (string);
  'taskIds': (string)[];
  'phase': (_swe_env_v1_ImagePhase__Output);
  'error': (string);
  'bytesDone': (number);
  'bytesTotal': (number);
  'layersDone': (number);
  'layersTotal': (number);
  'attempt': (number);
}
