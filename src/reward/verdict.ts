import type { ListedStatus, TestStatusMap } from './test-status.js';

export type Resolution = 'FULL' | 'PARTIAL' | 'NO';

export interface ListedResult {
  readonly name: string;
  readonly status: ListedStatus;
}

export interface Verdict {
  readonly resolved: boolean;
  readonly resolution: Resolution;
  readonly failToPass: readonly ListedResult[];
  readonly passToPass: readonly ListedResult[];
  /** Set when the log cannot be trusted; the reward is then 0. */
  readonly rejection?: string;
}

/**
 * A listed test's status. Dataset names were made by SWE-bench's parser, which cuts ids at the
 * first space ("t[a b]" became "t[a"); such a name matches the full ids it is a cut of, and counts
 * as passed only if every one of them passed.
 */
function statusOf(results: TestStatusMap, name: string): ListedStatus {
  const exact = results.get(name);
  if (exact) return exact;
  const cuts = [...results].filter(([full]) => full.includes(' ') && full.split(/\s/)[0] === name).map(([, s]) => s);
  if (cuts.length === 0) return 'MISSING';
  return cuts.every((s) => s === cuts[0]) ? cuts[0]! : 'FAILED';
}

/**
 * SWE-bench's resolution, made strict where it can be gamed:
 * - a FAIL_TO_PASS test counts only when PASSED (XFAIL and SKIPPED do not: a conftest hook can
 *   mark any test xfail);
 * - a PASS_TO_PASS test counts when PASSED or XFAIL (SWE-bench built the lists counting XFAIL as
 *   passing, so an expected failure stays acceptable), never when skipped or missing;
 * - a test missing from the log fails;
 * - a log without a single FAILED or ERROR from a run that exited non-zero is rejected: the
 *   passing lines were printed by something other than pytest.
 */
export function decideVerdict(input: {
  results: TestStatusMap;
  failToPass: readonly string[];
  passToPass: readonly string[];
  exitCode: number;
}): Verdict {
  const failToPass = input.failToPass.map((name) => ({ name, status: statusOf(input.results, name) }));
  const passToPass = input.passToPass.map((name) => ({ name, status: statusOf(input.results, name) }));
  const f2pOk = failToPass.filter((r) => r.status === 'PASSED').length;
  const p2pOk = passToPass.filter((r) => r.status === 'PASSED' || r.status === 'XFAIL').length;
  const allP2p = p2pOk === passToPass.length;
  const resolution: Resolution =
    f2pOk === failToPass.length && allP2p ? 'FULL' : f2pOk > 0 && allP2p ? 'PARTIAL' : 'NO';
  const anyFailure = [...input.results.values()].some((s) => s === 'FAILED' || s === 'ERROR');
  if (input.exitCode !== 0 && !anyFailure && resolution === 'FULL') {
    return {
      resolved: false,
      resolution: 'NO',
      failToPass,
      passToPass,
      rejection: `the test run exited with code ${input.exitCode} but its log reports no failure: the log is not trusted`,
    };
  }
  return { resolved: resolution === 'FULL', resolution, failToPass, passToPass };
}
