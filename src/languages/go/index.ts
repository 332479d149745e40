import { harnessFunctions, smithFunctions, type Language } from '../language.js';
import { parseLogGotest } from './harness-parsers.js';
import { GO_RUNNER } from './runner.js';
import { parseSmithGo } from './smith-parsers.js';
import { SMITH_GO_PROFILES } from './smith-profiles.js';

export const GO: Language = {
  name: 'go',
  title: 'Go',
  harnessParsers: harnessFunctions({ parse_log_gotest: parseLogGotest }),
  smithParsers: smithFunctions({ swesmith_go: parseSmithGo }),
  // gcc for cgo, as the harness's Go images (golang:<version>) have it.
  toolchain: { family: 'go', packages: ['golang-go', 'gcc', 'libc6-dev'] },
  // A `TestMain` in any `_test.go` of the package owns the test binary's output and exit; test data
  // (a whole component, the last one too: a symlink named `testdata` stands for the folder).
  runnerControl: {
    isControlPath: (parts) => (parts.at(-1) ?? '').endsWith('_test.go') || parts.includes('testdata'),
    buildDefinitions: [[/(^|[\s;&|(])go(\s|$)/, /^go\.(mod|sum|work|work\.sum)$/]],
  },
  smithProfiles: { go: SMITH_GO_PROFILES },
  canaryRunners: [GO_RUNNER],
};
