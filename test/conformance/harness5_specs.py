"""swebench 5.x's own reading of rows that carry eval_script and log_parser: reads JSON lines of
rows on stdin, prints JSON lines of make_test_spec(row).eval_script and the parser it names."""
import json
import sys

import swebench
from swebench.harness.log_parsers import PARSER_REGISTRY
from swebench.harness.utils import make_test_spec

assert swebench.__version__.startswith("5."), swebench.__version__

for line in sys.stdin:
    row = json.loads(line)
    spec = make_test_spec({**row, "image": "unused", "eval_type": "pass_and_fail"})
    assert spec.log_parser in PARSER_REGISTRY, spec.log_parser
    sys.stdout.write(json.dumps({"instance_id": spec.instance_id, "eval_script": spec.eval_script, "parser": spec.log_parser}) + "\n")
