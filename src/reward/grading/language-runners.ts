import { canaryRunner, type LanguageRunner } from '../../languages/index.js';

/**
 * The runners beyond Python that take canaries, asked through the language wing (each runner's
 * rules are in its language's folder, src/languages/<language>/runner.ts).
 */
export { languageRunner, type LanguageRunner } from '../../languages/index.js';

/** Whether a hidden test file can hold the runner's canaries and the command runs them all. */
export function canaryFile(runner: LanguageRunner, path: string, content: string | undefined): boolean {
  if (content === undefined) return false;
  return canaryRunner(runner).canaryFile(path, content);
}

/**
 * Whether the test command runs every test of the file unfiltered: a name filter (`go test -run`,
 * cargo's positional filter or `--test` target, googletest's `--gtest_filter`, ctest's selections)
 * would leave a canary out of the run, which must not read as a missing result.
 */
export function commandRunsAll(runner: LanguageRunner, testCommand: string, path: string): boolean {
  return canaryRunner(runner).commandRunsAll(testCommand, path);
}

/** Whether a failing test stops the rest of the run: go test's -failfast; cargo stops after a failing test target unless told not to; googletest's fail-fast and break-on-failure. */
export function stopsEarly(runner: LanguageRunner, testCommand: string): boolean {
  return canaryRunner(runner).stopsEarly(testCommand);
}
