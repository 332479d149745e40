/** A task as the server uses it, normalised from a SWE-bench style record. */
export interface Task {
  readonly id: string;
  readonly dataset: string;
  readonly repo: string;
  readonly baseCommit: string;
  readonly version: string;
  readonly problemStatement: string;
  readonly hintsText: string;
  readonly createdAt: string;
  readonly environmentSetupCommit: string;
  /** The gold patch: never shown to the agent. */
  readonly goldPatch: string;
  /** Adds the tests that decide the reward: never shown to the agent. */
  readonly testPatch: string;
  readonly failToPass: readonly string[];
  readonly passToPass: readonly string[];
  readonly image: string;
  readonly workdir: string;
  /** A per-record test command, replacing the one of the repo/version spec. */
  readonly testCmd?: string;
  /** A per-record install step: run by `images build`, and re-run after the patch when grading. */
  readonly install?: string;
  /** SWE-bench 5.x: the row's own eval.sh, the reference for what runs around the tests. */
  readonly evalScript?: string;
  /** SWE-bench 5.x: the harness parser the row names (parse_log_pytest, parse_log_django...). */
  readonly logParser?: string;
  /**
   * SWE-bench Multimodal's `eval_type: fail_only`: the row's parser reports failures only, and the
   * grader attaches a reporter of its own to the runner so that each listed test passes on a line
   * saying so (the loader takes such a row only where it has one).
   */
  readonly failOnly?: true;
  /**
   * SWE-smith: the patch that introduces the bug. `images build` applies and commits it on top of
   * base_commit; the gold patch is its reverse and there is no test patch.
   */
  readonly bugPatch?: string;
}
