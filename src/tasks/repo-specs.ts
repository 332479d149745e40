/**
 * How to run a repository's tests and read their log: the facts of the SWE-bench harness
 * (MAP_REPO_VERSION_TO_SPECS' test_cmd and MAP_REPO_TO_PARSER_PY, v4.1.0) and of SWE-Gym's fork for
 * its 11 repositories. A record's own `test_cmd` overrides these. Repos not listed get
 * `pytest -rA` and the pytest parser.
 */
export type LogParserName = 'pytest' | 'pytest_options' | 'pytest_v2' | 'django' | 'sympy';

/** How the test files of the test patch become arguments of the test command. */
export type DirectiveStyle = 'paths' | 'django_modules' | 'mypy_k';

export interface RepoSpec {
  readonly testCmd: string;
  readonly parser: LogParserName;
  readonly directives: DirectiveStyle;
}

/** SWE-bench's TEST_PYTEST as finally defined in constants/python.py (the first definition is overwritten). */
export const PYTEST_RA = 'pytest -rA';

const pytest = (parser: LogParserName = 'pytest', testCmd = PYTEST_RA): RepoSpec => Object.freeze({ testCmd, parser, directives: 'paths' });

const SPECS: Readonly<Record<string, RepoSpec>> = Object.freeze({
  // SWE-bench (Verified / Lite / full).
  'django/django': Object.freeze({
    testCmd: './tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1',
    parser: 'django',
    directives: 'django_modules',
  }),
  'sympy/sympy': Object.freeze({
    testCmd: "PYTHONWARNINGS='ignore::UserWarning,ignore::SyntaxWarning' bin/test -C --verbose",
    parser: 'sympy',
    directives: 'paths',
  }),
  'sphinx-doc/sphinx': pytest('pytest_v2', 'tox --current-env -epy39 -v --'),
  'astropy/astropy': pytest('pytest_v2', 'pytest -rA -vv -o console_output_style=classic --tb=no'),
  'scikit-learn/scikit-learn': pytest('pytest_v2'),
  'pydicom/pydicom': pytest('pytest_options'),
  'psf/requests': pytest('pytest_options'),
  'pylint-dev/pylint': pytest('pytest_options'),
  'pylint-dev/astroid': pytest(),
  'pallets/flask': pytest(),
  'marshmallow-code/marshmallow': pytest(),
  'pvlib/pvlib-python': pytest(),
  'pyvista/pyvista': pytest(),
  'sqlfluff/sqlfluff': pytest(),
  'pydata/xarray': pytest(),
  'pytest-dev/pytest': pytest(),
  'matplotlib/matplotlib': pytest(),
  'mwaskom/seaborn': pytest(),
  // SWE-Gym (SWE-Gym/SWE-Bench-Fork make_test_command).
  'getmoto/moto': pytest('pytest', 'pytest -n0 -rA'),
  'conan-io/conan': pytest('pytest', 'pytest -n0 -rA'),
  'python/mypy': Object.freeze({ testCmd: PYTEST_RA, parser: 'pytest', directives: 'mypy_k' }),
  'pandas-dev/pandas': pytest(),
  'Project-MONAI/MONAI': pytest(),
  'dask/dask': pytest(),
  'iterative/dvc': pytest(),
  'pydantic/pydantic': pytest(),
  'facebookresearch/hydra': pytest(),
  'bokeh/bokeh': pytest(),
  'modin-project/modin': pytest(),
});

const DEFAULT_SPEC = pytest();

/** Repo names are matched case-insensitively (SWE-Gym lower-cases them); SWE-smith's "swesmith/owner__name.sha" maps to owner/name. */
export function repoSpec(repo: string, _version: string): RepoSpec {
  const smith = /^swesmith\/([^_]+)__(.+)\.[0-9a-f]+$/i.exec(repo);
  const key = smith ? `${smith[1]}/${smith[2]}` : repo;
  const lower = key.toLowerCase();
  for (const [name, spec] of Object.entries(SPECS)) if (name.toLowerCase() === lower) return spec;
  return DEFAULT_SPEC;
}

/** SWE-bench's get_test_directives for Django: tests/a/b.py -> a.b */
export function djangoModule(path: string): string {
  let d = path.endsWith('.py') ? path.slice(0, -3) : path;
  if (d.startsWith('tests/')) d = d.slice('tests/'.length);
  return d.replaceAll('/', '.');
}
