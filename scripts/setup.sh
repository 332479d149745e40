#!/usr/bin/env bash
# Everything a fresh machine needs, idempotent and quick when already done:
# npm dependencies and build, a Docker engine, the offline base image, the demo task images,
# and Debian's Python packages for clients/python.
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

missing=()
for pkg in python3-grpcio python3-protobuf python3-pytest protobuf-compiler protobuf-compiler-grpc; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  apt_install "${missing[@]}"
fi

base_image=$(bash scripts/build-base-image.sh)
log "base image $base_image"
node dist/src/cli/main.js images build-demo --base "$base_image" >&2
