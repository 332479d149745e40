"""The SWE-bench harness 4.1's set-up steps for every (repository, version) of its table, every
language: JSON lines of repo, version, pip_packages, pre_install, install, build and apt-pkgs, each
as a list (a string step is a list of one), and python (its version, or null). Run with swebench
4.1.0 first on sys.path."""
import json

import swebench
from swebench.harness.constants import MAP_REPO_VERSION_TO_SPECS

assert swebench.__version__ == "4.1.0", swebench.__version__


def as_list(value):
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


for repo, versions in MAP_REPO_VERSION_TO_SPECS.items():
    for version, spec in versions.items():
        print(json.dumps({"repo": repo, "version": str(version), **{key: as_list(spec.get(key)) for key in ("pip_packages", "pre_install", "install", "build", "apt-pkgs")}, "python": str(spec["python"]) if spec.get("python") else None}))
