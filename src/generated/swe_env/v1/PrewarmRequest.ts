// Original file: proto/swe_env/v1/swe_env.proto


export interface PrewarmRequest {
  'taskId'?: (string);
  'count'?: (number);
}

export interface PrewarmRequest__Output {
  'taskId': (string);
  'count': (number);
}
