#!/usr/bin/env bash
# Builds the sandbox base image offline: a debootstrapped Debian rootfs with python3 (also as
# `python`, as in SWE-bench images), pytest, pip,
# setuptools, git and the locales package (the harness's eval commands run locale-gen), imported
# with `docker import`. Skipped when an image with this content hash exists.
# Usage: build-base-image.sh [--suite SUITE] [--packages pkg,pkg] [--wheels DIR] [--repo IMAGE_REPO]
#   --suite     the Debian release (default bookworm, Python 3.11; bullseye has 3.9, trixie 3.13),
#               from the machine's apt mirror
#   --packages  more Debian packages, from the machine's own apt sources
#   --wheels    a directory of wheels installed into the system python (pip --no-index)
# Prints the image reference on stdout; the default set on bookworm is also tagged IMAGE_REPO:latest.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

repo=swe-env/base
suite=${SWE_ENV_BASE_SUITE:-bookworm}
extra=""
wheels=""
while [ $# -gt 0 ]; do
  case "$1" in
    --packages) extra=$2; shift 2 ;;
    --wheels) wheels=$(cd "$2" && pwd) || exit 2; shift 2 ;;
    --repo) repo=$2; shift 2 ;;
    --suite) suite=$2; shift 2 ;;
    *) echo "build-base-image.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
case "$suite" in
  *[!a-z]* | "") echo "build-base-image.sh: --suite takes a Debian release name (bookworm, bullseye, trixie)" >&2; exit 2 ;;
esac
packages="python3,python-is-python3,python3-pytest,python3-pip,python3-setuptools,python3-wheel,git,procps,patch,ca-certificates,less,locales${extra:+,$extra}"
wheel_hash=""
if [ -n "$wheels" ]; then
  ls "$wheels"/*.whl >/dev/null 2>&1 || { echo "build-base-image.sh: no .whl files in $wheels" >&2; exit 2; }
  wheel_hash=$(cat "$wheels"/*.whl | sha256sum | cut -c1-12)
fi
hash=$( (cat "$0"; echo "$suite $packages $wheel_hash") | sha256sum | cut -c1-12)
image="$repo:$suite-$hash"

if docker image inspect "$image" >/dev/null 2>&1; then
  printf '%s\n' "$image"
  exit 0
fi

command -v debootstrap >/dev/null || apt_install debootstrap
mirror=$(apt_mirror)
root=$(mktemp -d /var/tmp/swe-env-rootfs.XXXXXX)
trap 'rm -rf "$root"' EXIT

log "debootstrap $suite into $root (a few minutes)"
debootstrap --variant=minbase --include="$packages" "$suite" "$root" "$mirror" >"$root.log" 2>&1 || {
  tail -n 30 "$root.log" >&2
  exit 1
}
rm -f "$root.log"
if [ -n "$wheels" ]; then
  log "installing $(ls "$wheels"/*.whl | wc -l) wheels from $wheels"
  mkdir -p "$root/tmp/swe-env-wheels"
  cp "$wheels"/*.whl "$root/tmp/swe-env-wheels/"
  # The variable rather than the flag: pip before 23.0 (bullseye's) has no such flag, and ignores it.
  chroot "$root" sh -c 'PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install --quiet --no-index --find-links /tmp/swe-env-wheels /tmp/swe-env-wheels/*.whl' >&2 || exit 1
  rm -rf "$root/tmp/swe-env-wheels"
fi
# Slim the image: package lists and caches are useless in a network-less sandbox.
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root"/usr/share/doc/* \
  "$root"/usr/share/man/* "$root"/usr/share/locale/*
log "docker import $image"
tar -C "$root" -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV LANG=C.UTF-8' \
  --change 'ENV PIP_BREAK_SYSTEM_PACKAGES=1' \
  --change 'CMD ["/bin/bash"]' \
  --change "LABEL swe-env.debian-suite=$suite" \
  - "$image" >/dev/null
if [ -z "$extra" ] && [ -z "$wheels" ] && [ "$suite" = bookworm ]; then docker tag "$image" "$repo:latest"; fi
printf '%s\n' "$image"
