#!/usr/bin/env bash
# Harbor (PyPI `harbor`, pinned in clients/python/tests/requirements-harbor.txt) needs Python >= 3.12,
# the main test venv is 3.11: its own venv, from pyenv's 3.12 (or SWE_ENV_HARBOR_BASE_PYTHON), keyed by
# the hash of its requirement file, kept outside the work tree like the main one. tests/test_harbor.py
# runs Harbor's own CLI from it, with this checkout's clients/python on PYTHONPATH (the client is
# not installed here either). Idempotent. Prints the venv's path on stdout.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
cd "$here/.."

req=clients/python/tests/requirements-harbor.txt
hash=$(sha256sum "$req" | cut -c1-12)
venv=${SWE_ENV_HARBOR_ENV:-/var/cache/swe-env/harbor-$hash}

base_python() {
  if [ -n "${SWE_ENV_HARBOR_BASE_PYTHON:-}" ]; then printf '%s\n' "$SWE_ENV_HARBOR_BASE_PYTHON"; return; fi
  local candidate
  for candidate in "$HOME"/.pyenv/versions/3.12*/bin/python3 "$(command -v python3.12 || true)"; do
    if [ -x "$candidate" ]; then printf '%s\n' "$candidate"; return; fi
  done
  log "no Python 3.12 found (pyenv's ~/.pyenv/versions/3.12*, python3.12, or SWE_ENV_HARBOR_BASE_PYTHON)"
  return 1
}

if [ ! -f "$venv/.complete" ]; then
  python=$(base_python)
  log "harbor test environment in $venv ($python; first time on this machine: a minute or two)"
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip --disable-pip-version-check -q install -r "$req" 2>&1 | grep -v 'is ignored' >&2 || true
  "$venv/bin/python" -c 'import harbor.environments.base, grpc, google.protobuf; from importlib.metadata import version; assert version("harbor") == "0.26.0", version("harbor")' >&2
  touch "$venv/.complete"
  # Environments of older requirement sets are dead weight: keep only this one.
  if [ -z "${SWE_ENV_HARBOR_ENV:-}" ]; then
    for old in /var/cache/swe-env/harbor-*; do
      if [ "$old" != "$venv" ] && [ -d "$old" ]; then rm -rf "$old"; fi
    done
  fi
fi
printf '%s\n' "$venv"
