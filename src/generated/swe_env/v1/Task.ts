// Original file: proto/swe_env/v1/swe_env.proto

import type { ToolSchema as _swe_env_v1_ToolSchema, ToolSchema__Output as _swe_env_v1_ToolSchema__Output } from '../../swe_env/v1/ToolSchema';

export interface Task {
  'taskId'?: (string);
  'dataset'?: (string);
  'repo'?: (string);
  'baseCommit'?: (string);
  'version'?: (string);
  'problemStatement'?: (string);
  'hintsText'?: (string);
  'createdAt'?: (string);
  'image'?: (string);
  'workdir'?: (string);
  'failToPassCount'?: (number);
  'passToPassCount'?: (number);
  'prompt'?: (string);
  'tools'?: (_swe_env_v1_ToolSchema)[];
}

export interface Task__Output {
  'taskId': (string);
  'dataset': (string);
  'repo': (string);
  'baseCommit': (string);
  'version': (string);
  'problemStatement': (string);
  'hintsText': (string);
  'createdAt': (string);
  'image': (string);
  'workdir': (string);
  'failToPassCount': (number);
  'passToPassCount': (number);
  'prompt': (string);
  'tools': (_swe_env_v1_ToolSchema__Output)[];
}
