"""swesmith's own facts for every profile beyond Python (swesmith 0.0.9, run with the 4.1 harness
folder first on sys.path). First, for a synthetic instance of each profile, the test command its
get_test_cmd gives: prints {"profiles": [...]}. Then, on JSON lines from stdin, the status maps its
log_parser methods give: {profile, log} -> {map} or {error}; {profiles: [...], log} -> {maps: [...]}
(one log read by many profiles, sent once). A parser's prints go to stderr, not into the answers."""
import contextlib
import json
import sys

from swesmith.profiles import registry
from swesmith.profiles.python import PythonProfile

# A bug patch that modifies, creates, deletes and renames files, in and out of packages/ (babel's
# get_test_cmd reads it), with a hunk line that looks like a file header.
PATCH = """diff --git a/packages/babel-core/src/index.js b/packages/babel-core/src/index.js
--- a/packages/babel-core/src/index.js
+++ b/packages/babel-core/src/index.js
@@ -1,2 +1 @@
--- a/lib/not-a-header.js
-a = 1
+a = 2
diff --git a/packages/babel-parser/src/new.js b/packages/babel-parser/src/new.js
new file mode 100644
--- /dev/null
+++ b/packages/babel-parser/src/new.js
@@ -0,0 +1 @@
+b = 1
diff --git a/src/main.go b/src/main.go
--- a/src/main.go
+++ b/src/main.go
@@ -1 +1 @@
-c = 1
+c = 2
diff --git a/packages/babel-types/old.js b/packages/babel-types/old.js
deleted file mode 100644
--- a/packages/babel-types/old.js
+++ /dev/null
@@ -1 +0,0 @@
-d = 1
diff --git a/lib/moved.js b/packages/babel-traverse/moved.js
similarity index 90%
rename from lib/moved.js
rename to packages/babel-traverse/moved.js
--- a/lib/moved.js
+++ b/packages/babel-traverse/moved.js
@@ -1 +1 @@
-e = 1
+e = 2
diff --git a/packages/babel-core/src/index.js b/packages/babel-core/src/index.js
--- a/packages/babel-core/src/index.js
+++ b/packages/babel-core/src/index.js
@@ -9 +9 @@
-f = 1
+f = 2
"""

profiles = sorted({type(p): p for p in registry.values() if not isinstance(p, PythonProfile)}.values(), key=lambda p: p.repo_name)
answers = []
for profile in profiles:
    instance = {
        "instance_id": f"{profile.repo_name}.func_pm_op_swap__abc123",
        "repo": f"swesmith/{profile.repo_name}",
        "patch": PATCH,
        "FAIL_TO_PASS": ["TestOne", "pkg/sub::test two"],
        "PASS_TO_PASS": ["TestThree"],
    }
    command, _ = profile.get_test_cmd(instance)
    answers.append({"repo_name": profile.repo_name, "module": type(profile).__module__, "record": instance, "test_cmd": command})
out = sys.stdout
out.write(json.dumps({"profiles": answers}) + "\n")


def parse(name, log):
    try:
        with contextlib.redirect_stdout(sys.stderr):
            return {"map": registry.get(name).log_parser(log)}
    except Exception as error:  # the package's parser itself fails on this log
        return {"error": f"{type(error).__name__}: {error}"}


for line in sys.stdin:
    item = json.loads(line)
    if "profiles" in item:
        out.write(json.dumps({"maps": [parse(name, item["log"]) for name in item["profiles"]]}) + "\n")
    else:
        out.write(json.dumps(parse(item["profile"], item["log"])) + "\n")
