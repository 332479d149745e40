// Original file: proto/swe_env/v1/swe_env.proto


export interface Durations {
  'captureS'?: (number | string);
  'containerStartS'?: (number | string);
  'patchS'?: (number | string);
  'testRunS'?: (number | string);
  'totalS'?: (number | string);
  'installS'?: (number | string);
}

export interface Durations__Output {
  'captureS': (number);
  'containerStartS': (number);
  'patchS': (number);
  'testRunS': (number);
  'totalS': (number);
  'installS': (number);
}
