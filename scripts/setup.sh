#!/usr/bin/env bash
# Everything a fresh machine needs, idempotent and quick when already done:
# npm dependencies and build, a Docker engine, the offline base image, the demo task images,
# and the Python test environment from PyPI (scripts/setup-python.sh).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
cd "$here/.."

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  log "npm ci"
  npm ci --no-audit --no-fund >&2
fi
log "building"
npm run --silent build >&2

bash scripts/ensure-docker.sh

# A headless browser for the trajectory viewer's test (driven by playwright-core from npm).
if ! command -v chromium >/dev/null 2>&1; then
  apt_install chromium
fi

python_env=$(bash scripts/setup-python.sh)
log "python test environment $python_env"

base_image=$(bash scripts/build-base-image.sh)
log "base image $base_image"
node dist/src/cli/main.js images build-demo --base "$base_image" >&2
