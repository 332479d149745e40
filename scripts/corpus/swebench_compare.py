"""swebench 5.x's reading of swe-env's test logs, for the corpus report. JSON lines in:
{instance_id, version, log_parser, eval_type, log, fail_to_pass, pass_to_pass}; JSON lines out:
{statuses: {test: status or null}, resolved: bool, resolution: str} or {error}. The statuses are the
harness's parser's own (PARSER_REGISTRY[log_parser]); the verdict is swebench.harness.grading's
get_eval_tests_report and get_resolution_status, as run_evaluation grades. Run it with a Python
that has swebench 5.x (pip install --no-deps swebench==5.0.2 and what its harness imports)."""
import contextlib
import json
import sys
from types import SimpleNamespace

from swebench.harness.constants import EvalType
from swebench.harness.grading import (
    FAIL_TO_PASS,
    PASS_TO_PASS,
    _resolve_case,
    get_eval_tests_report,
    get_resolution_status,
)
from swebench.harness.log_parsers import PARSER_REGISTRY

out = sys.stdout
for line in sys.stdin:
    item = json.loads(line)
    spec = SimpleNamespace(instance_id=item["instance_id"], version=item.get("version"))
    try:
        with contextlib.redirect_stdout(sys.stderr):
            sm = PARSER_REGISTRY[item["log_parser"]](item["log"], spec)
            gold = {FAIL_TO_PASS: item["fail_to_pass"], PASS_TO_PASS: item["pass_to_pass"]}
            eval_type = EvalType(item.get("eval_type") or "pass_and_fail")
            report = get_eval_tests_report(sm, gold, eval_type=eval_type)
            resolution = get_resolution_status(report)
        statuses = {}
        for case in item["fail_to_pass"] + item["pass_to_pass"]:
            key = _resolve_case(case, sm)
            statuses[case] = None if key is None else sm[key]
        answer = {"statuses": statuses, "resolved": resolution == "RESOLVED_FULL", "resolution": resolution}
    except Exception as error:  # the harness's parser itself fails on this log
        answer = {"error": f"{type(error).__name__}: {error}"}
    out.write(json.dumps(answer) + "\n")
