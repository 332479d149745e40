/**
 * How to run a repository's tests and read their log: SWE-bench's MAP_REPO_VERSION_TO_SPECS and
 * MAP_REPO_TO_PARSER in miniature. Repos not listed get `pytest -rA` and the pytest parser.
 */
export type LogParserName = 'pytest';

export interface RepoSpec {
  /** Run with the test directives (test files of the test_patch) appended. */
  readonly testCmd: string;
  readonly parser: LogParserName;
}

/** SWE-bench's TEST_PYTEST as finally defined in constants/python.py. */
export const PYTEST_RA = 'pytest -rA';

const DEFAULT_SPEC: RepoSpec = Object.freeze({ testCmd: PYTEST_RA, parser: 'pytest' });

const SPECS: Readonly<Record<string, RepoSpec>> = Object.freeze({
  'swe-env-demo/textkit': DEFAULT_SPEC,
  'swe-env-demo/minicalc': DEFAULT_SPEC,
  'swe-env-demo/intervals': DEFAULT_SPEC,
});

export function repoSpec(repo: string, _version: string): RepoSpec {
  return SPECS[repo] ?? DEFAULT_SPEC;
}
