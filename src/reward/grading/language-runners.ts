import { phpunitFile } from './phpunit-mirrors.js';

/**
 * The runners beyond Python that take canaries, and where: `go test`, cargo and googletest binaries
 * (whose harness parser is `parse_log_googletest`), node:test files and PHPUnit classes. Each predicate errs towards planting none: a
 * canary the command does not run would read as missing, an integrity flag on an honest run.
 */

export type LanguageRunner = 'go' | 'cargo' | 'gtest' | 'tap' | 'phpunit';

/** The runner a harness parser reads, when swe-env can plant canaries for it. */
export function languageRunner(harnessParser: string): LanguageRunner | undefined {
  if (harnessParser === 'parse_log_gotest' || harnessParser === 'swesmith_go') return 'go';
  if (harnessParser === 'parse_log_cargo' || harnessParser === 'swesmith_cargo') return 'cargo';
  if (harnessParser === 'parse_log_googletest') return 'gtest';
  if (harnessParser === 'parse_log_tap') return 'tap';
  if (harnessParser === 'parse_log_phpunit') return 'phpunit';
  return undefined;
}

/** Whether a hidden test file can hold the runner's canaries and the command runs them all. */
export function canaryFile(runner: LanguageRunner, path: string, content: string | undefined): boolean {
  if (content === undefined) return false;
  if (runner === 'go') return path.endsWith('_test.go') && /^import\s*(\(\s*[^)]*"testing"[^)]*\)|"testing")/m.test(content) && /\*testing\.T\b/.test(content);
  // A googletest source the build compiles into a test binary: whether it does is the build's, so
  // canaries go only into a file holding one of the row's listed tests (see planLanguageCanaries).
  // node's own runner: a file that takes its `test` from node:test (other TAP producers print the same lines).
  if (runner === 'tap') return /\.[cm]?js$/.test(path) && /require\(\s*['"]node:test['"]\s*\)|from\s+['"]node:test['"]/.test(content) && /^(test|it)\(/m.test(content);
  if (runner === 'phpunit') return path.endsWith('.php') && phpunitFile(content);
  if (runner === 'gtest') return /\.(cc|cpp|cxx)$/.test(path) && /^#include\s*[<"]gtest\/gtest\.h[>"]/m.test(content) && /^TEST(_F)?\(/m.test(content);
  return /^tests\/[^/]+\.rs$/.test(path) && /#\[test\]/.test(content);
}

/**
 * Whether the test command runs every test of the file unfiltered: a name filter (`go test -run`,
 * cargo's positional filter or `--test` target, googletest's `--gtest_filter`, ctest's selections)
 * would leave a canary out of the run, which must not read as a missing result.
 */
export function commandRunsAll(runner: LanguageRunner, testCommand: string, path: string): boolean {
  if (runner === 'tap') return /\bnode\b[^\n]*\s--test\b/.test(testCommand) && !/--test-name-pattern|--test-skip-pattern|--test-only|--test-shard/.test(testCommand);
  if (runner === 'phpunit') return /\bphpunit\b/.test(testCommand) && !/--filter\b|--group\b|--exclude-group\b|--testsuite\b|--list-tests/.test(testCommand);
  if (runner === 'gtest') return !/--gtest_filter|GTEST_FILTER|\bctest\b[^\n]*\s(-R|-E|-L|-LE|-I|--tests-regex|--exclude-regex|--label-regex|--tests-information)\b/.test(testCommand);
  if (runner === 'go') {
    if (/\s-(test\.)?run[=\s]/.test(testCommand)) return false;
    const dir = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '.';
    return testCommand.includes('./...') || new RegExp(`(^|\\s)\\./${dir === '.' ? '' : dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/?(\\s|$)`).test(testCommand);
  }
  const args = /cargo\s+test(.*)$/m.exec(testCommand)?.[1] ?? '';
  const beforeDashes = args.split(/\s--(\s|$)/)[0] ?? '';
  const positional = beforeDashes.split(/\s+/).filter((a, i, all) => a !== '' && !a.startsWith('-') && !/^--(features|package|manifest-path|target|jobs|test|bin|example)$/.test(all[i - 1] ?? ''));
  return positional.length === 0 && !/\s--test[=\s]/.test(beforeDashes);
}

/** Whether a failing test stops the rest of the run: go test's -failfast; cargo stops after a failing test target unless told not to; googletest's fail-fast and break-on-failure. */
export function stopsEarly(runner: LanguageRunner, testCommand: string): boolean {
  if (runner === 'gtest') return /--gtest_(fail_fast|break_on_failure)|GTEST_(FAIL_FAST|BREAK_ON_FAILURE)/.test(testCommand);
  if (runner === 'tap') return /--test-bail\b/.test(testCommand);
  if (runner === 'phpunit') return /--stop-on-(failure|defect|error)\b/.test(testCommand);
  return runner === 'go' ? /\s-failfast\b/.test(testCommand) : !/--no-fail-fast\b/.test(testCommand);
}
