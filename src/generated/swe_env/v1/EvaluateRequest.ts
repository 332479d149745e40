// Original file: proto/swe_env/v1/swe_env.proto


export interface EvaluateRequest {
  'taskId'?: (string);
  'patch'?: (string);
  'rewardRule'?: (string);
}

export interface EvaluateRequest__Output {
  'taskId': (string);
  'patch': (string);
  'rewardRule': (string);
}
