// Original file: proto/swe_env/v1/swe_env.proto


export interface PrewarmResponse {
  'warm'?: (number);
  'starting'?: (number);
  'message'?: (string);
}

export interface PrewarmResponse__Output {
  'warm': (number);
  'starting': (number);
  'message': (string);
}
