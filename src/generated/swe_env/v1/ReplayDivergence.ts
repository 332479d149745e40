// Original file: proto/swe_env/v1/swe_env.proto


export interface ReplayDivergence {
  'stepIndex'?: (number);
  'field'?: (string);
  'recorded'?: (string);
  'replayed'?: (string);
}

export interface ReplayDivergence__Output {
  'stepIndex': (number);
  'field': (string);
  'recorded': (string);
  'replayed': (string);
}
