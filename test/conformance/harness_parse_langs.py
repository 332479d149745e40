"""The installed harness's (swebench 5.x) non-Python log parsers on logs: JSON lines {parser, log,
instance_id, version} in, {map} or {error} out. A parser's prints (maven's and gradle's warnings,
next's failures) go to stderr, not into the answers. Names the registry lacks are looked up in
swebench.harness.log_parsers.javascript (functions only MAP_REPO_TO_PARSER_JS names)."""
import contextlib
import json
import sys
from types import SimpleNamespace

from swebench.harness.log_parsers import PARSER_REGISTRY
import swebench.harness.log_parsers.javascript as javascript

out = sys.stdout
for line in sys.stdin:
    item = json.loads(line)
    spec = SimpleNamespace(instance_id=item.get("instance_id"), version=item.get("version"))
    parser = PARSER_REGISTRY.get(item["parser"]) or getattr(javascript, item["parser"])
    try:
        with contextlib.redirect_stdout(sys.stderr):
            answer = {"map": parser(item["log"], spec)}
    except Exception as error:  # the harness's parser itself fails on this log
        answer = {"error": f"{type(error).__name__}: {error}"}
    out.write(json.dumps(answer) + "\n")
