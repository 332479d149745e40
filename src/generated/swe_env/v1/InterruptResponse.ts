// Original file: proto/swe_env/v1/swe_env.proto


export interface InterruptResponse {
  'interrupted'?: (boolean);
}

export interface InterruptResponse__Output {
  'interrupted': (boolean);
}
