import type { VersionFacts } from './swe-bench-specs.js';

/**
 * SWE-Gym's 11 repositories as its fork of the harness grades them (SWE-Gym/SWE-Bench-Fork,
 * swebench/harness/constants.py and log_parsers.py; not on PyPI, so these facts are carried here
 * and tested as a table). Its make_test_command differs from SWE-bench's: mypy's `-k` expression
 * is built from the `[case X]` names in the test patch. The fork lower-cases repository names.
 */
export const SWE_GYM_SPECS: Readonly<Record<string, readonly VersionFacts[]>> = {
  'python/mypy': [
    { versions: ["1.7", "1.8", "1.9", "1.10", "1.11"], testCmd: "pytest -rA -k", install: "python -m pip install -r test-requirements.txt; python -m pip install -e .; hash -r" },
    { versions: ["1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "1.6"], testCmd: "pytest -n0 -rA -k", install: "python -m pip install -r test-requirements.txt; python -m pip install -e .; hash -r" },
    { versions: ["0.990", "0.980", "0.970", "0.960", "0.950", "0.940"], testCmd: "pytest -n0 -rA -k", install: "python -m pip install -r test-requirements.txt; python -m pip install -e .; pip install pytest pytest-xdist; hash -r" },
    { versions: ["0.920", "0.910", "0.820", "0.810", "0.800"], testCmd: "pytest -n0 -rA -k", install: "python -m pip install -r test-requirements.txt; python -m pip install -e .; pip install pytest pytest-xdist; hash -r;" },
  ],
  'getmoto/moto': [
    { versions: ["0.4", "1.0", "1.2", "1.3", "2.0", "2.1", "2.2", "2.3", "3.0", "3.1", "4.0", "4.1", "4.2", "5.0"], testCmd: "pytest -n0 -rA", install: "make init" },
  ],
  'conan-io/conan': [
    { versions: ["1.33", "1.34", "1.36", "2.0", "1.35", "1.37", "1.46", "1.38", "1.39", "1.40", "1.41", "1.42", "1.45", "1.43", "1.44", "1.47", "1.48", "1.49", "1.50", "1.51", "1.52", "1.53", "1.55", "1.54", "1.57", "1.58", "1.59"], testCmd: "pytest -n0 -rA", install: "echo 'cython<3' > /tmp/constraint.txt; export PIP_CONSTRAINT=/tmp/constraint.txt; python -m pip install -r conans/requirements.txt; python -m pip install -r conans/requirements_server.txt; python -m pip install -r conans/requirements_dev.txt ", evalCommands: ["export PYTHONPATH=${PYTHONPATH:-}:$(pwd)"] },
    { versions: ["2.1", "1.60", "1.61", "1.62", "2.2", "2.3", "2.4"], testCmd: "pytest -n0 -rA", install: "python -m pip install -r conans/requirements.txt; python -m pip install -r conans/requirements_server.txt; python -m pip install -r conans/requirements_dev.txt ", evalCommands: ["export PYTHONPATH=${PYTHONPATH:-}:$(pwd)"] },
  ],
  'dask/dask': [
    { versions: ["2.11", "2.12", "2.13", "2.14", "2.15", "2.16", "2.17", "2.18", "2.19", "2.21", "2.22", "2.23", "2.25", "2.26", "2.27", "2.28", "2.29", "2.30", "2020.12", "2021.01", "2021.02", "2021.03", "2021.04", "2021.05", "2021.06", "2021.07", "2021.08", "2021.09", "2021.10", "2021.11", "2021.12", "2022.01", "2022.02", "2022.03", "2022.04", "2022.05", "2022.6", "2022.7", "2022.8", "2022.9", "2022.10", "2022.11", "2022.12", "2023.1", "2023.2", "2023.3", "2023.4", "2023.5", "2023.6", "2023.7", "2023.8", "2023.9", "2023.10", "2023.11", "2023.12", "2024.1", "2024.2", "2024.3", "2024.4", "2024.5"], testCmd: "pytest -n0 -rA  --color=no", install: "python -m pip install --no-deps -e ." },
  ],
  'project-monai/monai': [
    { versions: ["0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "0.11", "0.105", "1.0", "1.1", "1.2", "1.3"], testCmd: "pytest -rA ", install: "sed -i '/^git+https:\\/\\/github.com\\/Project-MONAI\\//d' requirements-dev.txt; python -m pip install types-pkg-resources==0.1.3 pytest; pip install -r requirements-dev.txt;python setup.py develop;" },
  ],
  'iterative/dvc': [
    { versions: ["0.1", "0.8", "0.9", "0.12", "0.13", "0.14", "0.15", "0.16", "0.17", "0.18", "0.19", "0.20", "0.21", "0.22", "0.23", "0.24", "0.27", "0.28", "0.29", "0.30", "0.31", "0.32", "0.33", "0.34", "0.35", "0.40", "0.41", "0.50", "0.51", "0.52", "0.53", "0.54", "0.55", "0.56", "0.57", "0.58", "0.59", "0.60", "0.61", "0.62", "0.63", "0.65", "0.66", "0.68", "0.69", "0.70", "0.71", "0.74", "0.75", "0.76", "0.77", "0.78", "0.80", "0.81", "0.82", "0.83", "0.84", "0.85", "0.86", "0.87", "0.88", "0.89", "0.90", "0.91", "0.92", "0.93", "1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7", "1.8", "1.9", "1.10", "1.11", "2.0", "2.1", "2.2", "2.3", "2.4", "2.5", "2.6", "2.7", "2.8", "2.9", "2.10", "2.11", "2.12", "2.13", "2.15", "2.17", "2.19", "2.20", "2.21", "2.22", "2.23", "2.24", "2.27", "2.28", "2.30", "2.33", "2.34", "2.35", "2.38", "2.41", "2.43", "2.44", "2.45", "2.46", "2.48", "2.50", "2.51", "2.52", "2.54", "2.55", "2.56", "2.57", "2.58", "3.0", "3.1", "3.2", "3.3"], testCmd: "pytest -rA", install: "python -m pip install --upgrade pip wheel GitPython; python -m pip install \"cython<3.0.0\" && python -m pip install --no-build-isolation pyyaml==5.4.1; python -m pip install git+https://github.com/iterative/mock-ssh-server.git || true; python -m pip install -r tests/requirements.txt || true; python -m pip install -r test-requirements.txt || true; python -m pip install -e \".[tests,dev,all_remotes,all,testing]\"; python -m pip install \"numpy<=1.20\"; python -m pip install \"pytest<8\";" },
    { versions: ["3.4", "3.5", "3.6", "3.10", "3.11", "3.12", "3.13", "3.14", "3.15", "3.17", "3.19", "3.23", "3.24", "3.28", "3.29", "3.36", "3.37", "3.38", "3.43", "3.47", "3.48", "3.49"], testCmd: "pytest -rA", install: "python -m pip install --upgrade pip wheel GitPython; python -m pip install \"cython<3.0.0\" && python -m pip install --no-build-isolation pyyaml==5.4.1; python -m pip install git+https://github.com/iterative/mock-ssh-server.git || true; python -m pip install -r tests/requirements.txt || true; python -m pip install -r test-requirements.txt || true; python -m pip install -e \".[tests,dev,all_remotes,all,testing]\";" },
  ],
  'bokeh/bokeh': [
    { versions: ["3.0", "3.3", "3.4", "3.5"], testCmd: "pytest -rA -n0", install: "python -m pip install -e .; python -m pip install bokeh_sampledata;" },
    { versions: ["2.0", "2.1", "2.3", "2.4", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "0.10", "0.11", "0.12", "0.13", "0.1181316818", "1.0", "1.1", "1.2", "1.3", "1.4"], testCmd: "pytest -rA -n0", install: "pip install \"setuptools<66\" \"jinja2<3.1\"; printf \"1\n\" | python setup.py develop; bokeh sampledata;" },
  ],
  'modin-project/modin': [
    { versions: ["0.1", "0.2", "0.3", "0.4", "0.6", "0.8", "0.9", "0.10", "0.11", "0.12", "0.13", "0.14", "0.15", "0.16", "0.17", "0.18", "0.19"], testCmd: "pytest -n0 -rA", install: "python -m pip install -e .; python -m pip install numpy==1.23.1 protobuf==3.20.1;" },
    { versions: ["0.20", "0.21", "0.22", "0.23", "0.24", "0.25", "0.26", "0.27", "0.28", "0.29", "0.30"], testCmd: "pytest -n0 -rA", install: "python -m pip install -e .;" },
  ],
  'pydantic/pydantic': [
    { versions: ["0.2", "0.41", "0.4", "0.6", "0.9", "0.10", "0.11", "0.13", "0.14", "0.151", "0.15", "0.17", "0.18", "0.201", "0.20", "0.24", "0.27", "0.29", "1.01", "0.32", "1.4", "1.31", "1.41", "1.51", "1.5", "1.71", "1.6", "1.7", "1.8", "1.9", "1.10", "2.0", "2.01", "2.02", "2.03", "2.04", "2.6", "2.5", "2.4", "2.7"], testCmd: "pytest -rA --tb=short -vv -o console_output_style=classic --no-header", install: "export PATH=\"$HOME/.local/bin:$PATH\"; pdm add pre-commit; make install;" },
  ],
  'pandas-dev/pandas': [
    { versions: ["0.16", "0.17", "0.18", "0.19", "0.20", "0.21", "0.22", "0.23", "0.24", "0.25", "0.26", "1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "2.0", "2.1"], testCmd: "pytest -rA --tb=long", install: "python -m pip install 'numpy<2'; python -m pip install -ve . --no-build-isolation -Ceditable-verbose=true; pip uninstall pytest-qt -y;" },
    { versions: ["2.2", "3.0"], testCmd: "pytest -rA --tb=long", install: "python -m pip install -ve . --no-build-isolation -Ceditable-verbose=true; pip uninstall pytest-qt -y;" },
  ],
  'facebookresearch/hydra': [
    { versions: ["0.1", "0.9", "0.10", "0.11", "0.12", "1.0", "1.1", "1.2"], testCmd: "pytest -rA --tb=long", install: "sed -i 's|isort@git+git://github.com/timothycrosley/isort|isort@git+https://github.com/timothycrosley/isort|g' requirements/dev.txt; { tail -n1 requirements/requirements.txt | grep -q \".\" && echo \"\"; } >> requirements/requirements.txt; echo \"pip==24.0\" >> requirements/requirements.txt;pip install \"pip==24.0\"; pip install -r requirements/dev.txt; pip install -e .;" },
    { versions: ["1.3", "1.4"], testCmd: "pytest -rA --tb=long", install: "pip install -r requirements/dev.txt; pip install -e .;" },
  ],
};

/** The fork's MAP_REPO_TO_PARSER for its own repositories: all parse_log_pytest but pydantic's. */
export const SWE_GYM_PARSERS: Readonly<Record<string, string>> = {
  'python/mypy': 'parse_log_pytest',
  'getmoto/moto': 'parse_log_pytest',
  'conan-io/conan': 'parse_log_pytest',
  'modin-project/modin': 'parse_log_pytest',
  'project-monai/monai': 'parse_log_pytest',
  'iterative/dvc': 'parse_log_pytest',
  'dask/dask': 'parse_log_pytest',
  'bokeh/bokeh': 'parse_log_pytest',
  'pydantic/pydantic': 'parse_log_pytest_pydantic',
  'pandas-dev/pandas': 'parse_log_pytest',
  'facebookresearch/hydra': 'parse_log_pytest',
};
