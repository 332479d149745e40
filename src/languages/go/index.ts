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
  toolchain: { family: 'go', packages: ['golang-go'] },
  smithProfiles: { go: SMITH_GO_PROFILES },
  canaryRunners: [GO_RUNNER],
};
