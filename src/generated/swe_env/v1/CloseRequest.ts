// Original file: proto/swe_env/v1/swe_env.proto


export interface CloseRequest {
  'episodeId'?: (string);
}

export interface CloseRequest__Output {
  'episodeId': (string);
}
