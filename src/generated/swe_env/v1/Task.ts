// Original file: proto/swe_env/v1/swe_env.proto


export interface Task {
  'taskId'?: (string);
  'dataset'?: (string);
  'repo'?: (string);
  'baseCommit'?: (string);
  'version'?: (string);
  'problemStatement'?: (string);
  'hintsText'?: (string);
  'createdAt'?: (string);
  'image'?: (string);
  'workdir'?: (string);
  'failToPassCount'?: (number);
  'passToPassCount'?: (number);
  'prompt'?: (string);
}

export interface Task__Output {
  'taskId': (string);
  'dataset': (string);
  'repo': (string);
  'baseCommit': (string);
  'version': (string);
  'problemStatement': (string);
  'hintsText': (string);
  'createdAt': (string);
  'image': (string);
  'workdir': (string);
  'failToPassCount': (number);
  'passToPassCount': (number);
  'prompt': (string);
}
