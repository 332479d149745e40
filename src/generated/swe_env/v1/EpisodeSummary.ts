// Original file: proto/swe_env/v1/swe_env.proto

import type { GradeReport as _swe_env_v1_GradeReport, GradeReport__Output as _swe_env_v1_GradeReport__Output } from '../../swe_env/v1/GradeReport';
import type { Long } from '@grpc/proto-loader';

export interface EpisodeSummary {
  'episodeId'?: (string);
  'taskId'?: (string);
  'steps'?: (number);
  'reward'?: (number | string);
  'terminated'?: (boolean);
  'truncated'?: (boolean);
  'endReason'?: (string);
  'durationS'?: (number | string);
  'report'?: (_swe_env_v1_GradeReport | null);
  'seed'?: (number | string | Long);
  'groupId'?: (string);
  'containerRemovalPending'?: (string);
}

export interface EpisodeSummary__Output {
  'episodeId': (string);
  'taskId': (string);
  'steps': (number);
  'reward': (number);
  'terminated': (boolean);
  'truncated': (boolean);
  'endReason': (string);
  'durationS': (number);
  'report': (_swe_env_v1_GradeReport__Output | null);
  'seed': (number);
  'groupId': (string);
  'containerRemovalPending': (string);
}
