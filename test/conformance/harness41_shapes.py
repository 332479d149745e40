"""Every eval-script shape swebench 4.1 renders offline, as SWE-bench 5.x rows carry them.

Run with swebench 4.1.0 first on sys.path (as harness41_plans.py). For every (repository, version)
of MAP_REPO_VERSION_TO_SPECS, every language (Python's make_eval_script_list_py; C, Go, Java,
JavaScript, PHP, Ruby, Rust's make_eval_script_list_common with their build steps; JavaScript's
image-asset downloads), it makes a synthetic record, renders make_test_spec(record).eval_script,
and prints JSON lines: the row (the record with that eval_script and its parser's name) and the
script's parts, cut from make_test_spec's own eval_script_list at the harness's own strings (its
reset and test-patch commands, its markers), so they are the harness's steps, not a reading of the
joined script. Two extra rows are the Verified astropy rows of issue 20 (a pytest pin and an export
between the test patch and the start marker), made from the astropy script the same way.
"""
import json
import sys

import swebench
from swebench.harness.constants import END_TEST_OUTPUT, MAP_REPO_TO_EXT, MAP_REPO_VERSION_TO_SPECS, START_TEST_OUTPUT
from swebench.harness.log_parsers import MAP_REPO_TO_PARSER
import swebench.harness.test_spec.python as py_spec
from swebench.harness.test_spec.test_spec import make_test_spec

assert swebench.__version__ == "4.1.0", swebench.__version__

# Requirements feed env_script_list only, never the eval script, and there is no network here.
py_spec.get_requirements = lambda instance: "# requirements (not fetched)"
py_spec.get_environment_yml = lambda instance, env_name: "# environment.yml (not fetched)"

BASE = "0123456789abcdef0123456789abcdef01234567"
ISSUE_20_STEPS = ["pip install 'pytest<7.2'", "export SETUPTOOLS_USE_DISTUTILS=stdlib"]


def chunk(path, kind):
    if kind == "new":
        return f"diff --git a/{path} b/{path}\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+new\n"
    return f"diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n--- a/{path}\n+++ b/{path}\n@@ -1 +1,2 @@\n a\n+b\n"


def test_patch(ext):
    name = {"py": "tests/test_core.py", "js": "client/test/core.test.js", "go": "pkg/core_test.go", "java": "src/test/java/CoreTest.java",
            "rs": "tests/core.rs", "c": "tests/core_test.c", "php": "tests/CoreTest.php", "rb": "spec/core_spec.rb"}.get(ext, "tests/test_core")
    return chunk(name, "modified") + chunk("tests/fixtures/new_case.txt", "new")


def record_of(repo, version):
    ext = MAP_REPO_TO_EXT[repo]
    record = {
        "instance_id": f"{repo.replace('/', '__')}-{version}",
        "repo": repo,
        "version": version,
        "base_commit": BASE,
        "environment_setup_commit": BASE,
        "problem_statement": "conformance",
        "hints_text": "",
        "created_at": "2024-01-01T00:00:00Z",
        "patch": "",
        "test_patch": test_patch(ext),
        "FAIL_TO_PASS": json.dumps(["t1"]),
        "PASS_TO_PASS": "[]",
    }
    if ext == "js":
        # 5.x rows carry image_assets; the harness downloads them between the reset and the test patch.
        record["image_assets"] = json.dumps({"test_patch": [{"path": "test/fixtures/logo.png", "url": "https://example.com/logo.png"}]})
    return record


def cut(steps, record):
    """The parts of make_test_spec's eval_script_list, at the harness's own strings."""
    reset = next(i for i, s in enumerate(steps) if s.startswith(f"git checkout {BASE}") or s == 'echo "No test files to reset"')
    apply = next(i for i, s in enumerate(steps) if s.startswith("git apply") and record["test_patch"] in s)
    start = steps.index(f": '{START_TEST_OUTPUT}'")
    end = steps.index(f": '{END_TEST_OUTPUT}'")
    assert reset < apply < start < end, (reset, apply, start, end)
    assert steps[end + 1:] == [steps[reset]], steps[end + 1:]
    reset_files = steps[reset].split()[3:] if steps[reset].startswith("git checkout") else []
    return steps[:reset], {
        "reset_files": reset_files,
        "before_test_patch": steps[reset + 1:apply],
        "after_test_patch": steps[apply + 1:start],
        "test_command": "\n".join(steps[start + 1:end]),
    }


def head_parts(head, specs, ext):
    """The eval commands and install, checked to be all the harness put before the reset."""
    if ext == "py":
        eval_commands = list(specs.get("eval_commands", []))
        install = specs.get("install", "")
        expected = ["source /opt/miniconda3/bin/activate", "conda activate testbed", "cd /testbed", *eval_commands,
                    "git config --global --add safe.directory /testbed", "cd /testbed", "git status", "git show",
                    f"git -c core.fileMode=false diff {BASE}", "source /opt/miniconda3/bin/activate", "conda activate testbed",
                    *([install] if install else [])]
    else:
        eval_commands, install = [], ""
        expected = ["cd /testbed", "git config --global --add safe.directory /testbed", "cd /testbed"]
    assert head == expected, (head, expected)
    return {"eval_commands": eval_commands, "install": install}


def emit(record, steps, specs, parser, shape):
    head, parts = cut(steps, record)
    parts.update(head_parts(head, specs, MAP_REPO_TO_EXT[record["repo"]]))
    script = "\n".join(["#!/bin/bash", "set -uxo pipefail"] + steps) + "\n"
    row = {**record, "eval_script": script, "log_parser": parser}
    sys.stdout.write(json.dumps({"row": row, "parts": parts, "shape": shape, "language": MAP_REPO_TO_EXT[record["repo"]]}) + "\n")


for repo, versions in MAP_REPO_VERSION_TO_SPECS.items():
    if repo == "swe-bench/humaneval":
        continue  # not a repository task
    parser = MAP_REPO_TO_PARSER.get(repo)
    for version, specs in versions.items():
        record = record_of(repo, version)
        try:
            spec = make_test_spec(record)
        except Exception as error:  # the harness itself cannot render this entry (dbt-core: no test command)
            sys.stdout.write(json.dumps({"row": record, "error": f"{type(error).__name__}: {error}"}) + "\n")
            continue
        steps = list(spec.eval_script_list)
        assert spec.eval_script == "\n".join(["#!/bin/bash", "set -uxo pipefail"] + steps) + "\n"
        emit(record, steps, specs, parser.__name__ if parser else None, "harness")
        if repo == "astropy/astropy" and version in ("4.3", "5.0"):
            # Issue 20's rows: the harness's astropy script with their steps after the test patch.
            issue = {**record, "instance_id": f"{record['instance_id']}-issue-20"}
            apply = next(i for i, s in enumerate(steps) if s.startswith("git apply"))
            emit(issue, steps[:apply + 1] + ISSUE_20_STEPS + steps[apply + 1:], specs, parser.__name__, "issue-20")
