import { fileOfTestName, type ListedStatus, type Resolution, type TestStatus, type TestStatusMap } from '../languages/index.js';

export type { Resolution } from '../languages/index.js';

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
  /** Listed names no test of the run has, read from the log the harness's way (`[100%]`, an inner pytest's). */
  readonly harnessRead: readonly string[];
}

type Role = 'failToPass' | 'passToPass';

/** What counts as passing for a listed test: FAIL_TO_PASS must pass; PASS_TO_PASS may also XFAIL. */
function passes(role: Role, status: TestStatus): boolean {
  return status === 'PASSED' || (role === 'passToPass' && status === 'XFAIL');
}

/**
 * A listed test's status. Dataset names were made by SWE-bench's parser, which cuts ids at the
 * first space ("t[a b]" became "t[a"); such a name stands for every full id it is a cut of (a real
 * case: two PASSED and one XFAIL), and passes only if each of them passes in its role.
 */
function statusOf(results: TestStatusMap, name: string, role: Role): ListedStatus {
  const exact = results.get(name);
  if (exact) return exact;
  const cuts = [...results].filter(([full]) => /\s/.test(full) && full.split(/\s/)[0] === name).map(([, s]) => s);
  if (cuts.length === 0) return 'MISSING';
  return cuts.find((s) => !passes(role, s)) ?? (cuts.includes('PASSED') ? 'PASSED' : cuts[0]!);
}

/**
 * Whether a listed name is one only the harness's line-based reading produces, so that no result
 * of the run can be expected for it: a wrapped progress line's `[100%]`, or a pytest id of a file
 * that is no file of this repository (an inner pytest's temporary test file). Any other name is a
 * test of this run (a file's test, a unittest or sympy name), whose status only the run's own
 * results give: the loose lines the harness also reads are what the code under test can print.
 * Without the repository's files (a caller that has none) every name may be read the harness's way.
 */
function onlyTheHarnessNames(name: string, repositoryFiles: ReadonlySet<string> | undefined): boolean {
  if (repositoryFiles === undefined) return true;
  if (/^\[\s*\d+%\]$/.test(name)) return true;
  const file = fileOfTestName(name);
  return file !== undefined && !repositoryFiles.has(file);
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
  /**
   * The harness's line-based reading of the same log. A few datasets list names only it produces
   * (a wrapped progress line's `[100%]`, results an inner pytest printed into captured output);
   * such a name, missing from the run's own results, takes the status the harness reads for it.
   */
  harnessMap?: TestStatusMap;
  /**
   * The listed tests' files that are files of this repository (see repositoryTestFiles): a listed
   * test of one of them takes no status from the harness's reading, only from the run's results.
   */
  repositoryFiles?: ReadonlySet<string>;
  /** A failure outside the results read (a must-fail canary reported failing) explains a non-zero exit. */
  failureElsewhere?: boolean;
}): Verdict {
  const harnessRead: string[] = [];
  const listed =
    (role: Role) =>
    (name: string): ListedResult => {
      let status = statusOf(input.results, name, role);
      const fallback = status === 'MISSING' && onlyTheHarnessNames(name, input.repositoryFiles) ? input.harnessMap?.get(name) : undefined;
      if (fallback) {
        status = fallback;
        harnessRead.push(name);
      }
      return { name, status };
    };
  const failToPass = input.failToPass.map(listed('failToPass'));
  const passToPass = input.passToPass.map(listed('passToPass'));
  const f2pOk = failToPass.filter((r) => r.status === 'PASSED').length;
  const p2pOk = passToPass.filter((r) => r.status === 'PASSED' || r.status === 'XFAIL').length;
  const allP2p = p2pOk === passToPass.length;
  const resolution: Resolution = f2pOk === failToPass.length && allP2p ? 'FULL' : f2pOk > 0 && allP2p ? 'PARTIAL' : 'NO';
  const anyFailure = input.failureElsewhere === true || [...input.results.values()].some((s) => s === 'FAILED' || s === 'ERROR');
  if (input.exitCode !== 0 && !anyFailure && resolution === 'FULL') {
    return {
      resolved: false,
      resolution: 'NO',
      failToPass,
      passToPass,
      rejection: `the test run exited with code ${input.exitCode} but its log reports no failure: the log is not trusted`,
      harnessRead,
    };
  }
  return { resolved: resolution === 'FULL', resolution, failToPass, passToPass, harnessRead };
}
