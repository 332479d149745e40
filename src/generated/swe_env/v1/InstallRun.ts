// Original file: proto/swe_env/v1/swe_env.proto


export interface InstallRun {
  'ran'?: (boolean);
  'reason'?: (string);
  'exitCode'?: (number);
  'seconds'?: (number | string);
  'outputTail'?: (string);
}

export interface InstallRun__Output {
  'ran': (boolean);
  'reason': (string);
  'exitCode': (number);
  'seconds': (number);
  'outputTail': (string);
}
