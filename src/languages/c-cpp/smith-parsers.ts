import { py, pyFindallOne, pyLines, pyMatch, pySearch, pyStrip, type StatusMap } from '../shared/py-re.js';
import type { TestStatus } from '../shared/test-status.js';
import { pyFinditer, pyI, pyInt, pyIsDigit, pySplitlines } from '../shared/py-more.js';

/**
 * swesmith 0.0.9's C++ parsers (swesmith/profiles/cpp.py): CTest, Google Test, Catch2, Boost.Test,
 * and aria2's CppUnit and AirSim's wrapper. Most fall back on a run's totals when no test is named,
 * with made-up names (`synthetic_pass_0`, `test_passed_1`...). Not the harness's googletest parser
 * (which reads only `[ OK ]`/`[ FAILED ]` lines ending in a time).
 */

/** n made-up names `${prefix}${first}`, `${prefix}${first + 1}`... with one status. */
function synthetic(map: StatusMap, prefix: string, n: number, status: TestStatus, first = 0): void {
  for (let i = 0; i < n; i++) map.set(`${prefix}${i + first}`, status);
}

const CTEST = pyI('\\s*\\d+/\\d+\\s+Test\\s+#\\d+:\\s+([\\w\\-/.]+)\\s+\\.+\\s+(Passed|Failed)');
const CTEST_FAILED_SECTION = py('The following tests FAILED:\\n((?:\\s+\\d+\\s+-\\s+[\\w\\-/.]+.*\\n?)+)');
const CTEST_FAILED_LINE = py('\\d+\\s+-\\s+([\\w\\-/.]+)');
const CTEST_SUMMARY = pyI('(\\d+)%\\s+tests\\s+passed,\\s+(\\d+)\\s+tests\\s+failed\\s+out\\s+of\\s+(\\d+)');

/** `1/7 Test #1: name ..... Passed`, then the "tests FAILED:" list, else the percentage summary. */
export function parseSmithCtest(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const m of pyFinditer(CTEST, log)) map.set(m[1]!, m[2]!.toLowerCase() === 'passed' ? 'PASSED' : 'FAILED');
  const section = pySearch(CTEST_FAILED_SECTION, log);
  for (const line of section ? pySplitlines(section[1]!) : []) {
    const m = pySearch(CTEST_FAILED_LINE, line);
    if (m) map.set(m[1]!, 'FAILED');
  }
  if (map.size > 0) return map;
  const summary = pySearch(CTEST_SUMMARY, log);
  if (summary) {
    const failed = pyInt(summary[2]!);
    synthetic(map, 'synthetic_pass_', pyInt(summary[3]!) - failed, 'PASSED');
    synthetic(map, 'synthetic_fail_', failed, 'FAILED');
  }
  return map;
}

const GTEST_RESULTS: ReadonlyArray<[RegExp, number, TestStatus]> = [
  [py('\\[\\s*(OK|PASSED)\\s*\\]\\s+([\\w:/.]+)'), 2, 'PASSED'],
  [py('\\[\\s*FAILED\\s*\\]\\s+([\\w:/.]+)(?:\\s+\\(|$)'), 1, 'FAILED'],
  [py('\\[\\s*(SKIPPED|DISABLED)\\s*\\]\\s+([\\w:/.]+)'), 2, 'SKIPPED'],
];
const GTEST_COUNT = py('\\d+\\s+tests?[\\.,]');
const GTEST_TOTAL = py('\\[\\s*=+\\s*\\]\\s*(\\d+)\\s+tests?\\s+from');
const GTEST_PASSED = py('\\[\\s*PASSED\\s*\\]\\s*(\\d+)\\s+tests?');
const GTEST_FAILED = py('\\[\\s*FAILED\\s*\\]\\s*(\\d+)\\s+tests?');

/**
 * `[       OK ] Suite.Test`, `[  FAILED  ] Suite.Test (3 ms)`, `[ SKIPPED ] ...` on stripped lines;
 * a line that counts tests (`[  PASSED  ] 3 tests.`) names none, and stops the line's reading.
 * Without any, the totals of the summary as made-up names.
 */
export function parseSmithGtest(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const raw of pyLines(log)) {
    const line = pyStrip(raw);
    for (const [re, group, status] of GTEST_RESULTS) {
      const m = pyMatch(re, line);
      if (!m) continue;
      const name = m[group]!;
      if (!pyIsDigit(name) && !pySearch(GTEST_COUNT, line)) map.set(name, status);
      break;
    }
  }
  if (map.size > 0) return map;
  if (pySearch(GTEST_TOTAL, log)) {
    const count = (re: RegExp): number => {
      const m = pySearch(re, log);
      return m ? pyInt(m[1]!) : 0;
    };
    synthetic(map, 'test_passed_', count(GTEST_PASSED), 'PASSED', 1);
    synthetic(map, 'test_failed_', count(GTEST_FAILED), 'FAILED', 1);
  }
  return map;
}

const CATCH2_XML = py('<TestCase\\s+name="([^"]+)"[^>]*>.*?<OverallResult\\s+success="(true|false)"', { dotall: true });
const CATCH2_TEXT = pyI('^([^.:\\[\\]]+?)\\s*\\.\\.\\.\\s*(PASSED|FAILED)', { multiline: true });
const CATCH2_NUMBERED = py('^\\d+:');
const CATCH2_SUMMARY = pyI('test cases:\\s*(\\d+)\\s*\\|\\s*(\\d+)\\s*passed\\s*\\|\\s*(\\d+)\\s*failed');
const CATCH2_ALL_PASSED = pyI('All tests passed\\s*\\(.*?(\\d+)\\s+test cases?\\)');

/** Catch2's XML reporter (names as written, entities not decoded), else `name ... PASSED` lines, else its totals. */
export function parseSmithCatch2(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const m of pyFinditer(CATCH2_XML, log)) map.set(m[1]!, m[2] === 'true' ? 'PASSED' : 'FAILED');
  if (map.size > 0) return map;
  for (const m of pyFinditer(CATCH2_TEXT, log)) {
    const name = pyStrip(m[1]!);
    if (name === '' || pyMatch(CATCH2_NUMBERED, name)) continue;
    map.set(name, m[2]!.toUpperCase() === 'PASSED' ? 'PASSED' : 'FAILED');
  }
  if (map.size > 0) return map;
  const summary = pySearch(CATCH2_SUMMARY, log);
  if (summary) {
    synthetic(map, 'test_passed_', pyInt(summary[2]!), 'PASSED', 1);
    synthetic(map, 'test_failed_', pyInt(summary[3]!), 'FAILED', 1);
    return map;
  }
  const allPassed = pySearch(CATCH2_ALL_PASSED, log);
  if (allPassed) synthetic(map, 'test_passed_', pyInt(allPassed[1]!), 'PASSED', 1);
  return map;
}

const BOOST_ERROR = pyI('error(?:\\s+in)?\\s+"([^"]+)"');
const BOOST_ENTERING = py('Entering test (?:case|suite) "([^"]+)"');
const BOOST_NO_ERRORS = py('\\*\\*\\* No errors detected');
const BOOST_PASSED_COUNT = pyI('(\\d+)\\s+test cases?\\s+(?:out of \\d+ )?passed');
const BOOST_FAILURES = py('\\*\\*\\* (\\d+) failure(?:s)? detected');

/**
 * Boost.Test: a quoted name after `error in` fails, every other case or suite entered passes; else
 * "No errors detected" (a count of passed cases, or one `boost_test_suite`), else the failure count.
 */
export function parseSmithBoostTest(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const m of pyFinditer(BOOST_ERROR, log)) map.set(m[1]!, 'FAILED');
  for (const m of pyFinditer(BOOST_ENTERING, log)) if (!map.has(m[1]!)) map.set(m[1]!, 'PASSED');
  if (map.size > 0) return map;
  if (pySearch(BOOST_NO_ERRORS, log)) {
    const count = pySearch(BOOST_PASSED_COUNT, log);
    if (count) synthetic(map, 'test_passed_', pyInt(count[1]!), 'PASSED', 1);
    else map.set('boost_test_suite', 'PASSED');
    return map;
  }
  const failures = pySearch(BOOST_FAILURES, log);
  if (failures) synthetic(map, 'test_failed_', pyInt(failures[1]!), 'FAILED', 1);
  return map;
}

const CPPUNIT_OK = py('OK \\((\\d+)\\)');
const CPPUNIT_FAILURES = py('FAILURES!!!.*?Tests run: (\\d+),\\s+Failures: (\\d+)', { dotall: true });

/** aria2's CppUnit: only counts, `OK (N)` or `FAILURES!!! Tests run: N, Failures: F`, as made-up names. */
export function parseSmithCppunit(log: string): StatusMap {
  const map: StatusMap = new Map();
  const ok = pySearch(CPPUNIT_OK, log);
  if (ok) synthetic(map, 'test_', pyInt(ok[1]!), 'PASSED');
  const failures = pySearch(CPPUNIT_FAILURES, log);
  if (failures) {
    const failed = pyInt(failures[2]!);
    synthetic(map, 'test_', pyInt(failures[1]!) - failed, 'PASSED');
    synthetic(map, 'test_fail_', failed, 'FAILED');
  }
  return map;
}

const AIRSIM_PASSED = py('\\[\\s+PASSED\\s+\\]\\s+([\\w.]+)');
const AIRSIM_FAILED = py('\\[\\s+FAILED\\s+\\]\\s+([\\w.]+)');
const AIRSIM_RUNNING = py('Running (\\d+) test');

/** AirSim's wrapper: gtest-like `[  PASSED  ] name` anywhere; or one passed test for a `Running N test` line. */
export function parseSmithAirsim(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const name of pyFindallOne(AIRSIM_PASSED, log)) map.set(name, 'PASSED');
  for (const name of pyFindallOne(AIRSIM_FAILED, log)) map.set(name, 'FAILED');
  if (map.size === 0 && pySearch(AIRSIM_RUNNING, log)) map.set('AirLibUnitTests.Main', 'PASSED');
  return map;
}
