// Original file: proto/swe_env/v1/swe_env.proto


export interface EvalPlan {
  'source'?: (string);
  'evalCommands'?: (string)[];
  'install'?: (string);
  'testCommand'?: (string);
  'resetFiles'?: (string)[];
  'harnessParser'?: (string);
  'notes'?: (string)[];
  'beforeTestPatch'?: (string)[];
  'afterTestPatch'?: (string)[];
}

export interface EvalPlan__Output {
  'source': (string);
  'evalCommands': (string)[];
  'install': (string);
  'testCommand': (string);
  'resetFiles': (string)[];
  'harnessParser': (string);
  'notes': (string)[];
  'beforeTestPatch': (string)[];
  'afterTestPatch': (string)[];
}
