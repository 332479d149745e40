# Shared helpers for the set-up scripts. Sourced, not run.
set -euo pipefail

log() { printf '[swe-env setup] %s\n' "$*" >&2; }

# The Debian mirror this machine's apt already uses: the first deb URI of its sources.
# (We never name a mirror host in the project's files.)
apt_mirror() {
  local uri=""
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    uri=$(awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }' /etc/apt/sources.list.d/debian.sources)
  fi
  if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
    uri=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^https?:/ && $i !~ /security/) { print $i; exit } }' /etc/apt/sources.list)
  fi
  if [ -z "$uri" ]; then
    log "cannot find a Debian mirror in /etc/apt/sources.list(.d)"
    return 1
  fi
  printf '%s\n' "$uri"
}

apt_updated=0
apt_install() {
  if [ "$apt_updated" = 0 ]; then
    log "apt-get update"
    apt-get update -qq >&2
    apt_updated=1
  fi
  log "apt-get install $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2
}

# The Python test environment: a venv keyed by the hash of its requirement files, kept outside the
# work tree so a fresh clone on the same machine (CI) reuses it; a new machine builds it once.
python_env_dir() {
  local top hash
  top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  hash=$(cat "$top"/clients/python/requirements/*.txt | sha256sum | cut -c1-12)
  printf '%s\n' "${SWE_ENV_PYTHON_ENV:-/var/cache/swe-env/python-$hash}"
}
