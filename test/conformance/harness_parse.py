"""The installed harness's log parsers on logs: JSON lines {parser, log} in, status maps out.
Whichever swebench is first on sys.path (4.1 or 5.x) is the one that parses."""
import json
import sys

import swebench

if swebench.__version__.startswith("4."):
    import swebench.harness.log_parsers.python as parsers

    def parse(name, log):
        return getattr(parsers, name)(log, None)
else:
    from swebench.harness.log_parsers import PARSER_REGISTRY

    def parse(name, log):
        return PARSER_REGISTRY[name](log, None)

for line in sys.stdin:
    item = json.loads(line)
    try:
        sys.stdout.write(json.dumps({"map": parse(item["parser"], item["log"])}) + "\n")
    except Exception as error:  # the harness's parser itself fails on this log
        sys.stdout.write(json.dumps({"error": f"{type(error).__name__}: {error}"}) + "\n")
