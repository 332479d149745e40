import type { CanaryRunner } from '../language.js';
import { GTEST_CANARY_TEXT } from './canaries.js';
import { GTEST_MIRRORS } from './mirrors.js';

/**
 * googletest binaries (whose harness parser is `parse_log_googletest`). Whether the build compiles a
 * source into a test binary is the build's, so canaries go only into a file holding one of the row's
 * listed tests (see planLanguageCanaries).
 */
export const GTEST_RUNNER: CanaryRunner = {
  ...GTEST_CANARY_TEXT,
  ...GTEST_MIRRORS,
  name: 'gtest',
  parsers: ['parse_log_googletest'],
  canaryFile: (path, content) =>
    /\.(cc|cpp|cxx)$/.test(path) && /^#include\s*[<"]gtest\/gtest\.h[>"]/m.test(content) && /^TEST(_F)?\(/m.test(content),
  // googletest's `--gtest_filter` and ctest's selections would leave a canary out.
  commandRunsAll: (testCommand) =>
    !/--gtest_filter|GTEST_FILTER|\bctest\b[^\n]*\s(-R|-E|-L|-LE|-I|--tests-regex|--exclude-regex|--label-regex|--tests-information)\b/.test(
      testCommand,
    ),
  stopsEarly: (testCommand) => /--gtest_(fail_fast|break_on_failure)|GTEST_(FAIL_FAST|BREAK_ON_FAILURE)/.test(testCommand),
  keyMatches: (canary, key) => key === `${canary.className ?? ''}.${canary.name}`,
};
