// Original file: proto/swe_env/v1/swe_env.proto

import type { ImageSupply as _swe_env_v1_ImageSupply, ImageSupply__Output as _swe_env_v1_ImageSupply__Output } from '../../swe_env/v1/ImageSupply';
import type { Long } from '@grpc/proto-loader';

export interface ServerInfo {
  'serverId'?: (string);
  'version'?: (string);
  'liveEpisodes'?: (number);
  'maxEpisodes'?: (number);
  'gradingsRunning'?: (number);
  'maxGradings'?: (number);
  'startsInFlight'?: (number);
  'maxStarts'?: (number);
  'taskCount'?: (number);
  'images'?: (string)[];
  'freeDiskBytes'?: (number | string | Long);
  'minFreeBytes'?: (number | string | Long);
  'draining'?: (boolean);
  'startedAt'?: (string);
  'warmSandboxes'?: (number);
  'imageSupply'?: (_swe_env_v1_ImageSupply | null);
  'engine'?: (string);
  'runtime'?: (string);
}

export interface ServerInfo__Output {
  'serverId': (string);
  'version': (string);
  'liveEpisodes': (number);
  'maxEpisodes': (number);
  'gradingsRunning': (number);
  'maxGradings': (number);
  'startsInFlight': (number);
  'maxStarts': (number);
  'taskCount': (number);
  'images': (string)[];
  'freeDiskBytes': (number);
  'minFreeBytes': (number);
  'draining': (boolean);
  'startedAt': (string);
  'warmSandboxes': (number);
  'imageSupply': (_swe_env_v1_ImageSupply__Output | null);
  'engine': (string);
  'runtime': (string);
}
