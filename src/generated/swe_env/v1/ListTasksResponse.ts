// Original file: proto/swe_env/v1/swe_env.proto

import type { TaskSummary as _swe_env_v1_TaskSummary, TaskSummary__Output as _swe_env_v1_TaskSummary__Output } from '../../swe_env/v1/TaskSummary';

export interface ListTasksResponse {
  'tasks'?: (_swe_env_v1_TaskSummary)[];
  'nextPageToken'?: (string);
  'totalSize'?: (number);
}

export interface ListTasksResponse__Output {
  'tasks': (_swe_env_v1_TaskSummary__Output)[];
  'nextPageToken': (string);
  'totalSize': (number);
}
