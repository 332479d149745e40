// Original file: proto/swe_env/v1/swe_env.proto


export interface TaskSummary {
  'taskId'?: (string);
  'dataset'?: (string);
  'repo'?: (string);
  'version'?: (string);
  'image'?: (string);
}

export interface TaskSummary__Output {
  'taskId': (string);
  'dataset': (string);
  'repo': (string);
  'version': (string);
  'image': (string);
}
