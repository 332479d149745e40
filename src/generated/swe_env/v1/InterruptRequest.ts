// Original file: proto/swe_env/v1/swe_env.proto


export interface InterruptRequest {
  'episodeId'?: (string);
}

export interface InterruptRequest__Output {
  'episodeId': (string);
}
