/**
 * What the SWE-bench harness runs for each (repository, version): the test command, the install
 * step its eval script re-runs after the patch, and the commands it runs first (locale and
 * environment). Facts read from swebench 4.1.0's MAP_REPO_VERSION_TO_SPECS (constants/python.py),
 * the last release that carries the table; SWE-bench 5.x rows carry the eval script it produced
 * (see eval-script.ts). Checked entry by entry against the installed harness in
 * test/conformance/harness-plan.test.ts.
 */
export interface VersionFacts {
  readonly versions: readonly string[];
  /** null: the harness has no test command for these versions (dbt-core), so it cannot grade them. */
  readonly testCmd: string | null;
  readonly install?: string;
  readonly evalCommands?: readonly string[];
}

export const SWE_BENCH_SPECS: Readonly<Record<string, readonly VersionFacts[]>> = {
  'astropy/astropy': [
    { versions: ["3.0", "3.1", "3.2", "4.1", "4.2", "4.3", "5.0", "5.1", "5.2", "v5.3"], testCmd: "pytest -rA", install: "python -m pip install -e .[test] --verbose" },
    { versions: ["0.1", "0.2", "0.3", "0.4", "1.1", "1.2", "1.3"], testCmd: "pytest -rA -vv -o console_output_style=classic --tb=no", install: "python -m pip install -e .[test] --verbose" },
  ],
  'dbt-labs/dbt-core': [
    { versions: ["0.13", "0.14", "0.15", "0.16", "0.17", "0.18", "0.19", "0.20", "0.21", "1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7"], testCmd: null, install: "python -m pip install -e ." },
  ],
  'django/django': [
    { versions: ["1.7", "1.8", "1.10", "1.11", "2.0", "2.1", "2.2"], testCmd: "./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1", install: "python setup.py install", evalCommands: ["export LANG=en_US.UTF-8", "export LC_ALL=en_US.UTF-8", "export PYTHONIOENCODING=utf8", "export LANGUAGE=en_US:en"] },
    { versions: ["1.9"], testCmd: "./tests/runtests.py --verbosity 2", install: "python setup.py install", evalCommands: ["export LANG=en_US.UTF-8", "export LC_ALL=en_US.UTF-8", "export PYTHONIOENCODING=utf8", "export LANGUAGE=en_US:en"] },
    { versions: ["1.4", "1.5", "1.6"], testCmd: "./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1", install: "python setup.py install" },
    { versions: ["3.0", "3.1", "3.2"], testCmd: "./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1", install: "python -m pip install -e .", evalCommands: ["sed -i '/en_US.UTF-8/s/^# //g' /etc/locale.gen && locale-gen", "export LANG=en_US.UTF-8", "export LANGUAGE=en_US:en", "export LC_ALL=en_US.UTF-8"] },
    { versions: ["4.0", "4.1", "4.2", "5.0", "5.1", "5.2"], testCmd: "./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1", install: "python -m pip install -e ." },
  ],
  'matplotlib/matplotlib': [
    { versions: ["3.5", "3.6", "3.7", "3.1", "3.2", "3.3", "3.4", "3.0"], testCmd: "pytest -rA", install: "python -m pip install -e ." },
    { versions: ["3.8", "3.9"], testCmd: "pytest -rA", install: "python -m pip install --no-build-isolation -e \".[dev]\"" },
    { versions: ["2.0", "2.1", "2.2", "1.0", "1.1", "1.2", "1.3", "1.4", "1.5"], testCmd: "pytest -rA", install: "python setup.py build; python setup.py install" },
  ],
  'marshmallow-code/marshmallow': [
    { versions: ["2.18", "2.19", "2.20", "3.0", "3.1", "3.10", "3.11", "3.12", "3.13", "3.15", "3.16", "3.19", "3.2", "3.4", "3.8", "3.9"], testCmd: "pytest -rA", install: "python -m pip install -e '.[dev]'" },
  ],
  'mwaskom/seaborn': [
    { versions: ["0.11"], testCmd: "pytest --no-header -rA", install: "python -m pip install -e ." },
    { versions: ["0.12", "0.13", "0.14"], testCmd: "pytest --no-header -rA", install: "python -m pip install -e .[dev]" },
  ],
  'pallets/flask': [
    { versions: ["2.0", "2.1", "2.2", "2.3", "3.0", "3.1"], testCmd: "pytest -rA", install: "python -m pip install -e ." },
  ],
  'psf/requests': [
    { versions: ["0.7", "0.8", "0.9", "0.11", "0.13", "0.14", "1.1", "1.2", "2.0", "2.2", "2.3", "2.4", "2.5", "2.7", "2.8", "2.9", "2.10", "2.11", "2.12", "2.17", "2.18", "2.19", "2.22", "2.26", "2.25", "2.27", "2.31", "3.0"], testCmd: "pytest -rA", install: "python -m pip install ." },
  ],
  'pvlib/pvlib-python': [
    { versions: ["0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9"], testCmd: "pytest -rA", install: "python -m pip install -e .[all]" },
  ],
  'pydata/xarray': [
    { versions: ["0.12", "0.18", "0.19", "0.20", "2022.03", "2022.06", "2022.09", "2023.07", "2024.05"], testCmd: "pytest -rA", install: "python -m pip install -e ." },
  ],
  'pydicom/pydicom': [
    { versions: ["1.0", "1.1", "1.2", "1.3", "1.4", "2.0", "2.1", "2.2", "2.3", "2.4", "3.0"], testCmd: "pytest -rA", install: "python -m pip install -e ." },
  ],
  'pylint-dev/astroid': [
    { versions: ["2.10", "2.12", "2.13", "2.14", "2.15", "2.16", "2.5", "2.6", "2.7", "2.8", "2.9", "3.0"], testCmd: "pytest -rA", install: "python -m pip install -e ." },
  ],
  'pylint-dev/pylint': [
    { versions: ["2.10", "2.11", "2.13", "2.14", "2.15", "2.16", "2.17", "2.8", "2.9", "3.0", "3.1", "3.2", "3.3", "4.0"], testCmd: "pytest -rA", install: "python -m pip install -e ." },
  ],
  'pytest-dev/pytest': [
    { versions: ["4.4", "4.5", "4.6", "5.0", "5.1", "5.2", "5.3", "5.4", "6.0", "6.2", "6.3", "7.0", "7.1", "7.2", "7.4", "8.0", "8.1", "8.2", "8.3", "8.4"], testCmd: "pytest -rA", install: "python -m pip install -e ." },
  ],
  'pyvista/pyvista': [
    { versions: ["0.20", "0.21", "0.22", "0.23", "0.24", "0.25", "0.26", "0.27", "0.28", "0.29", "0.30", "0.31", "0.32", "0.33", "0.34", "0.35", "0.36", "0.37", "0.38", "0.39", "0.40", "0.41", "0.42", "0.43"], testCmd: "pytest -rA", install: "python -m pip install -e ." },
  ],
  'scikit-learn/scikit-learn': [
    { versions: ["0.20", "0.21", "0.22", "1.3", "1.4", "1.5", "1.6"], testCmd: "pytest -rA", install: "python -m pip install -v --no-use-pep517 --no-build-isolation -e ." },
  ],
  'sphinx-doc/sphinx': [
    { versions: ["1.5", "1.6", "1.7", "1.8", "2.0", "2.1", "2.2", "2.3", "2.4", "3.0", "3.1", "3.2", "3.3", "3.4", "3.5", "4.0", "4.1", "4.2", "4.3", "4.4", "4.5", "5.0", "5.1", "5.2", "5.3", "6.0", "6.2", "7.0", "7.1", "7.2", "7.3", "7.4", "8.0", "8.1"], testCmd: "tox --current-env -epy39 -v --", install: "python -m pip install -e .[test]" },
  ],
  'sqlfluff/sqlfluff': [
    { versions: ["0.10", "0.11", "0.12", "0.13", "0.4", "0.5", "0.6", "0.8", "0.9", "1.0", "1.1", "1.2", "1.3", "1.4", "2.0", "2.1", "2.2"], testCmd: "pytest -rA", install: "python -m pip install -e ." },
  ],
  'sympy/sympy': [
    { versions: ["0.7", "1.0", "1.1", "1.10", "1.11", "1.12", "1.2", "1.4", "1.5", "1.6", "1.7", "1.8", "1.9", "1.13", "1.14"], testCmd: "PYTHONWARNINGS='ignore::UserWarning,ignore::SyntaxWarning' bin/test -C --verbose", install: "python -m pip install -e ." },
  ],
};

/** swebench's MAP_REPO_TO_PARSER_PY: the log parser of each repository (registry names). */
export const SWE_BENCH_PARSERS: Readonly<Record<string, string>> = {
  'astropy/astropy': 'parse_log_pytest_v2',
  'django/django': 'parse_log_django',
  'marshmallow-code/marshmallow': 'parse_log_pytest',
  'matplotlib/matplotlib': 'parse_log_matplotlib',
  'mwaskom/seaborn': 'parse_log_seaborn',
  'pallets/flask': 'parse_log_pytest',
  'psf/requests': 'parse_log_pytest_options',
  'pvlib/pvlib-python': 'parse_log_pytest',
  'pydata/xarray': 'parse_log_pytest',
  'pydicom/pydicom': 'parse_log_pytest_options',
  'pylint-dev/astroid': 'parse_log_pytest',
  'pylint-dev/pylint': 'parse_log_pytest_options',
  'pytest-dev/pytest': 'parse_log_pytest',
  'pyvista/pyvista': 'parse_log_pytest',
  'scikit-learn/scikit-learn': 'parse_log_pytest_v2',
  'sqlfluff/sqlfluff': 'parse_log_pytest',
  'sphinx-doc/sphinx': 'parse_log_pytest_v2',
  'sympy/sympy': 'parse_log_sympy',
};
