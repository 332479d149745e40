#!/usr/bin/env bash
# Builds and grades the whole real-task corpus (tasks/corpus/tasks.jsonl), one image build or grading
# at a time under nice, and writes OUT/report.md and OUT/report.json (see scripts/corpus/run.mjs).
#
#   scripts/corpus/run.sh --repos DIR [--out DIR] [--instance ID]... [other run.mjs options]
#
# DIR holds each repository as owner+name (a bare mirror will do; docs/dataset-builders.md#the-real-task-corpus).
# swebench 5.0.2 is installed from PyPI into its own venv ($SWEBENCH_VENV) for the per-test comparison.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.."
[ -f dist/src/cli/main.js ] || npm run build >&2
venv=${SWEBENCH_VENV:-/var/tmp/swe-env-corpus-swebench}
if ! "$venv/bin/python" -c 'import swebench.harness.grading, swebench.harness.log_parsers' 2>/dev/null; then
  echo "swebench 5.0.2 into $venv (first time: a minute or two)" >&2
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip -q install --no-deps swebench==5.0.2 >&2
  # What swebench.harness imports (its full dependency set pulls far more).
  "$venv/bin/python" -m pip -q install docker unidiff datasets python-dotenv modal tenacity >&2
  "$venv/bin/python" -c 'import swebench.harness.grading, swebench.harness.log_parsers'
fi
exec nice -n 10 node scripts/corpus/run.mjs --swebench-python "$venv/bin/python" "$@"
