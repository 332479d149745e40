#!/usr/bin/env bash
# Every test: type checks, lint, the TypeScript suites against real Docker and real gRPC, and the
# Python client's tests. Run after scripts/setup.sh (npm test does both).
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== typecheck"
npx tsc -p tsconfig.test.json
echo "== lint"
npx eslint .
echo "== vitest"
npx vitest run
if [ -d clients/python/tests ]; then
  echo "== python client"
  ( cd clients/python && /usr/bin/python3 -m pytest -q tests )
fi
