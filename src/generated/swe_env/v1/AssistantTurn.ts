// Original file: proto/swe_env/v1/swe_env.proto


export interface AssistantTurn {
  'content'?: (string);
  'reasoning'?: (string);
  'model'?: (string);
}

export interface AssistantTurn__Output {
  'content': (string);
  'reasoning': (string);
  'model': (string);
}
