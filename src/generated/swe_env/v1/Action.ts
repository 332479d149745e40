// Original file: proto/swe_env/v1/swe_env.proto


export interface Action {
  'name'?: (string);
  'argumentsJson'?: (string);
  'callId'?: (string);
}

export interface Action__Output {
  'name': (string);
  'argumentsJson': (string);
  'callId': (string);
}
