import type { HarnessGeneration } from '../../languages/index.js';

/** Where a plan's facts come from. */
export type PlanSource = 'record-eval-script' | 'record-test-cmd' | 'swe-bench' | 'swe-gym' | 'swe-smith' | 'default';

/**
 * What grading a task runs, decided once per task: the harness's steps before the tests (its eval
 * commands and the install it re-runs after the patch), the test command with its directives, the
 * test files reset from base_commit, and the harness's log parser. The grader adds its own checks
 * around these (what the patch may change, the result recorder); the plan is what it shares with
 * the official harness.
 */
export interface EvalPlan {
  readonly source: PlanSource;
  /** Run first, in order, in the test environment: locale, exports, per-row extras. */
  readonly evalCommands: readonly string[];
  /** The install step the harness re-runs after the patch ('' when it has none). */
  readonly install: string;
  /** Run between the reset of the test files and the test patch (a 5.x row's image assets). */
  readonly beforeTestPatch: readonly string[];
  /** Run after the test patch, right before the tests (a 5.x row's build steps, pins, exports). */
  readonly afterTestPatch: readonly string[];
  readonly testCommand: string;
  /** Test files checked out from base_commit before the test patch is applied. */
  readonly resetFiles: readonly string[];
  /** The harness's parser for the log, by its registry name (parse_log_pytest, parse_log_django...). */
  readonly harnessParser: string;
  /** Facts the plan could not follow, for the report (an unusable eval_script, an unknown version). */
  readonly notes: readonly string[];
  /** The grading rules of the harness this plan comes from, when fixed (SWE-smith grades as swebench 4.1). */
  readonly harnessGeneration?: HarnessGeneration;
}
