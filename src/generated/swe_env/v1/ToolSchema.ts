// Original file: proto/swe_env/v1/swe_env.proto


export interface ToolSchema {
  'type'?: (string);
  'name'?: (string);
  'description'?: (string);
  'parametersJson'?: (string);
  'openaiJson'?: (string);
}

export interface ToolSchema__Output {
  'type': (string);
  'name': (string);
  'description': (string);
  'parametersJson': (string);
  'openaiJson': (string);
}
