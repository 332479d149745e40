// Original file: proto/swe_env/v1/swe_env.proto


export interface PrefetchRequest {
  'taskIds'?: (string)[];
}

export interface PrefetchRequest__Output {
  'taskIds': (string)[];
}
