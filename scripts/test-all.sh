#!/usr/bin/env bash
# Every test: type checks, lint, the TypeScript suites against real Docker and real gRPC, and the
# Python client's tests. Run after scripts/setup.sh (npm test does both).
set -euo pipefail
cd "$(dirname "$0")/.."
# Servers the tests start keep their episode records and trajectories here, not in the user's home.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export SWE_ENV_STATE_DIR="$scratch/state" SWE_ENV_TRAJECTORY_DIR="$scratch/trajectories"
echo "== typecheck"
npx tsc -p tsconfig.test.json
echo "== lint"
npx eslint .
echo "== vitest"
npx vitest run
if [ -d clients/python/tests ]; then
  echo "== python client"
  . scripts/lib.sh
  python_env=$(python_env_dir)
  # This checkout's client, first on the path of the tests and of every process they start (the
  # shared venv holds no swe_env of its own: see scripts/setup-python.sh).
  ( cd clients/python && PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" "$python_env/bin/python" -m pytest -q -p no:cacheprovider tests )
fi
