// Original file: proto/swe_env/v1/swe_env.proto


export interface Finding {
  'kind'?: (string);
  'family'?: (string);
  'severity'?: (string);
  'label'?: (string);
  'line'?: (string);
}

export interface Finding__Output {
  'kind': (string);
  'family': (string);
  'severity': (string);
  'label': (string);
  'line': (string);
}
