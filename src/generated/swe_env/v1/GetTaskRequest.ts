// Original file: proto/swe_env/v1/swe_env.proto


export interface GetTaskRequest {
  'taskId'?: (string);
}

export interface GetTaskRequest__Output {
  'taskId': (string);
}
