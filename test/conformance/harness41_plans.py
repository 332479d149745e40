"""The SWE-bench harness 4.1's eval script for every (repository, version) of its table.

Run with swebench 4.1.0 first on sys.path (scripts/setup-python.sh installs it apart from the 5.x
test environment). For each Python (repository, version) in MAP_REPO_VERSION_TO_SPECS_PY it makes
a synthetic record whose test patch modifies, creates and deletes test files and touches a data
file, and prints JSON lines: the record, make_test_spec(record).eval_script and the repository's
parser from MAP_REPO_TO_PARSER_PY. Records the harness cannot make a spec for are printed with the
error instead (dbt-core has no test command).
"""
import json
import sys

import swebench
from swebench.harness.constants.python import MAP_REPO_VERSION_TO_SPECS_PY
from swebench.harness.log_parsers.python import MAP_REPO_TO_PARSER_PY
import swebench.harness.test_spec.python as py_spec
from swebench.harness.test_spec.test_spec import make_test_spec

assert swebench.__version__ == "4.1.0", swebench.__version__

# The environment image's requirements are fetched from GitHub; they feed env_script_list only,
# never the eval script, and there is no network here.
py_spec.get_requirements = lambda instance: "# requirements (not fetched)"
py_spec.get_environment_yml = lambda instance, env_name: "# environment.yml (not fetched)"


def chunk(path, kind):
    if kind == "new":
        return f"diff --git a/{path} b/{path}\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+def test_new(): pass\n"
    if kind == "deleted":
        return f"diff --git a/{path} b/{path}\ndeleted file mode 100644\nindex 1111111..0000000\n--- a/{path}\n+++ /dev/null\n@@ -1 +0,0 @@\n-def test_old(): pass\n"
    return f"diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n--- a/{path}\n+++ b/{path}\n@@ -1 +1,2 @@\n def test_a(): pass\n+def test_b(): pass\n"


def test_patch(repo):
    if repo == "django/django":
        files = [("tests/forms_tests/tests/test_forms.py", "modified"), ("tests/forms_tests/tests/test_new.py", "new"),
                 ("tests/forms_tests/fixtures/data.json", "modified"), ("tests/i18n/test_old.py", "deleted")]
    elif repo == "sympy/sympy":
        files = [("sympy/core/tests/test_basic.py", "modified"), ("sympy/core/tests/test_new.py", "new"), ("doc/src/changes.md", "modified")]
    else:
        files = [("tests/test_core.py", "modified"), ("pkg/tests/test_new.py", "new"), ("tests/data/expected.csv", "modified"),
                 ("tests/test_gone.py", "deleted"), ("docs/changes.txt", "modified")]
    return "".join(chunk(path, kind) for path, kind in files)


for repo, versions in MAP_REPO_VERSION_TO_SPECS_PY.items():
    if repo == "swe-bench/humaneval":
        continue  # not a repository task
    for version in versions:
        record = {
            "instance_id": f"{repo.replace('/', '__')}-{version}",
            "repo": repo,
            "version": version,
            "base_commit": "0123456789abcdef0123456789abcdef01234567",
            "environment_setup_commit": "0123456789abcdef0123456789abcdef01234567",
            "problem_statement": "conformance",
            "hints_text": "",
            "created_at": "2024-01-01T00:00:00Z",
            "patch": "",
            "test_patch": test_patch(repo),
            "FAIL_TO_PASS": json.dumps(["tests/test_core.py::test_b"]),
            "PASS_TO_PASS": "[]",
        }
        parser = MAP_REPO_TO_PARSER_PY.get(repo)
        out = {"record": record, "parser": parser.__name__ if parser else None}
        try:
            out["eval_script"] = make_test_spec(record).eval_script
        except Exception as error:  # the harness itself cannot grade this entry
            out["error"] = f"{type(error).__name__}: {error}"
        sys.stdout.write(json.dumps(out) + "\n")
