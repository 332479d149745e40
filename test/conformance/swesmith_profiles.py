"""swesmith's own grading facts for every Python repository profile (swesmith 0.0.9, run with the
4.1 harness folder first on sys.path): for a synthetic instance of each profile, the test command
get_test_cmd gives; then, on JSON lines {parser profile, log} from stdin, the status maps its
log parsers give. Prints {"commands": [...]} then one {"map": ...} per log."""
import json
import sys

from swesmith.profiles import registry
from swesmith.profiles.python import PythonProfile

profiles = sorted({type(p): p for p in registry.values() if isinstance(p, PythonProfile)}.values(), key=lambda p: p.repo_name)
commands = []
for profile in profiles:
    instance = {
        "instance_id": f"{profile.repo_name}.func_pm_op_swap__abc123",
        "repo": f"swesmith/{profile.repo_name}",
        "patch": "diff --git a/pkg/mod.py b/pkg/mod.py\n--- a/pkg/mod.py\n+++ b/pkg/mod.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n",
        "FAIL_TO_PASS": ["tests/test_b.py::test_one", "tests/test_a.py::TestX::test_two[p1]"],
        "PASS_TO_PASS": ["tests/test_c.py::test_three", "tests/test_a.py::test_four"],
    }
    command, _ = profile.get_test_cmd(instance)
    commands.append({"repo_name": profile.repo_name, "record": instance, "test_cmd": command})
sys.stdout.write(json.dumps({"commands": commands}) + "\n")

for line in sys.stdin:
    item = json.loads(line)
    profile = registry.get(item["profile"])
    sys.stdout.write(json.dumps({"map": profile.log_parser(item["log"])}) + "\n")
