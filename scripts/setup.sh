#!/usr/bin/env bash
# Everything a fresh machine needs, idempotent and quick when already done:
# npm dependencies and a build (only when the sources changed), a Docker engine, the offline base
# image, the demo task images, the `swe-env` command on PATH, and (not with --demo) what the tests
# need besides: a headless browser and the Python test environment from PyPI (setup-python.sh).
# Usage: setup.sh [--demo]   (--demo: only what serving the demo needs; `npm run demo` passes it)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
cd "$here/.."
mode=${1:-all}

# The package's own service (port 5000, data in /var/lib/docker-registry) is no part of the tests:
# where a service manager started it on install, stop it and keep it from starting at boot.
stop_packaged_registry() {
  if [ -d /run/systemd/system ]; then
    systemctl disable --now docker-registry.service >/dev/null 2>&1 || true
  elif [ -f /var/run/docker-registry.pid ]; then
    # The init script stops by its pid file only, never a test's registry.
    /etc/init.d/docker-registry stop >/dev/null 2>&1 || true
    update-rc.d docker-registry disable >/dev/null 2>&1 || true
  fi
}

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  log "npm ci"
  npm ci --no-audit --no-fund >&2
fi
# The build is skipped when nothing it reads changed since the last one (it takes half a minute).
stamp=dist/.build-stamp
if [ ! -f "$stamp" ] || [ -n "$(find src proto bench tsconfig.json package.json package-lock.json -newer "$stamp" -print -quit)" ]; then
  log "building"
  npm run --silent build >&2
  touch "$stamp"
fi
bash scripts/link-cli.sh
# A clone's commits pass the static gates CI runs first (.githooks/pre-commit).
if [ -d .git ] && [ "$(git config core.hooksPath || true)" != .githooks ]; then
  git config core.hooksPath .githooks
fi

bash scripts/ensure-docker.sh

if [ "$mode" != "--demo" ]; then
  # A headless browser for the trajectory viewer's test (driven by playwright-core from npm).
  if ! command -v chromium >/dev/null 2>&1; then
    apt_install chromium
  fi
  # A real registry for the image-pull tests (test/helpers/local-registry.ts starts its own on a
  # free port); htpasswd makes its bcrypt password file.
  if ! command -v docker-registry >/dev/null 2>&1; then
    apt_install docker-registry
    stop_packaged_registry
  fi
  if ! command -v htpasswd >/dev/null 2>&1; then
    apt_install apache2-utils
  fi
  # Other engines and runtimes (issue 21): Podman (its service is started by the tests' Podman leg,
  # scripts/podman-engine.sh) and gVisor's runsc, registered with the Docker engine.
  for tool in podman:podman newuidmap:uidmap slirp4netns:slirp4netns fuse-overlayfs:fuse-overlayfs; do
    command -v "${tool%%:*}" >/dev/null 2>&1 || apt_install "${tool#*:}"
  done
  bash scripts/register-runsc.sh
  python_env=$(bash scripts/setup-python.sh)
  log "python test environment $python_env"
fi

base_image=$(bash scripts/build-base-image.sh)
log "base image $base_image"
node dist/src/cli/main.js images build-demo --base "$base_image" >&2
