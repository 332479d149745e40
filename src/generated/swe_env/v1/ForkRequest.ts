// Original file: proto/swe_env/v1/swe_env.proto


export interface ForkRequest {
  'episodeId'?: (string);
  'count'?: (number);
  'freshBudgets'?: (boolean);
  'childEpisodeIds'?: (string)[];
}

export interface ForkRequest__Output {
  'episodeId': (string);
  'count': (number);
  'freshBudgets': (boolean);
  'childEpisodeIds': (string)[];
}
