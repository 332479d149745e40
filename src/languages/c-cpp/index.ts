import { harnessFunctions, smithFunctions, type Language } from '../language.js';
import { parseLogDoctest, parseLogGoogletest, parseLogJq, parseLogMicropythonTest, parseLogRedis } from './harness-parsers.js';
import { GTEST_RUNNER } from './runner.js';
import {
  parseSmithAirsim,
  parseSmithBoostTest,
  parseSmithCatch2,
  parseSmithCppunit,
  parseSmithCtest,
  parseSmithGtest,
} from './smith-parsers.js';
import { SMITH_CPP_PROFILES } from './smith-profiles.js';
import { SMITH_C_PROFILES } from './smith-profiles-c.js';

export const C_CPP: Language = {
  name: 'c-cpp',
  title: 'C/C++',
  harnessParsers: harnessFunctions({
    parse_log_redis: parseLogRedis,
    parse_log_jq: parseLogJq,
    parse_log_doctest: parseLogDoctest,
    parse_log_micropython_test: parseLogMicropythonTest,
    parse_log_googletest: parseLogGoogletest,
  }),
  // Valkey's and jq's are the harness's redis and jq parsers line for line, so those ports are reused.
  smithParsers: smithFunctions({
    swesmith_ctest: parseSmithCtest,
    swesmith_gtest: parseSmithGtest,
    swesmith_catch2: parseSmithCatch2,
    swesmith_boost_test: parseSmithBoostTest,
    swesmith_cppunit: parseSmithCppunit,
    swesmith_airsim: parseSmithAirsim,
    swesmith_valkey: parseLogRedis,
    swesmith_jq: parseLogJq,
  }),
  wholeLogParsers: ['parse_log_doctest'],
  toolchain: { family: 'cpp', packages: ['gcc', 'g++', 'cmake', 'make', 'libgtest-dev'] },
  runnerControl: {
    isControlPath: () => false,
    buildDefinitions: [[/(^|[\s;&|(/])(cmake|ctest)(\s|$)/, /^(CMakeLists\.txt|.*\.cmake)$/]],
  },
  smithProfiles: { cpp: SMITH_CPP_PROFILES, c: SMITH_C_PROFILES },
  canaryRunners: [GTEST_RUNNER],
};
