#!/usr/bin/env bash
# Builds the sandbox base image offline: a debootstrapped Debian rootfs with python3, pytest and git,
# imported with `docker import`. Skipped when an image with this script's content hash exists.
# Usage: build-base-image.sh [IMAGE_REPO]   (prints the image reference on stdout)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

repo=${1:-swe-env/base}
suite=${SWE_ENV_BASE_SUITE:-bookworm}
packages="python3,python3-pytest,git,procps,patch,ca-certificates,less"
hash=$( (cat "$0"; echo "$suite $packages") | sha256sum | cut -c1-12)
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
# Slim the image: package lists and caches are useless in a network-less sandbox.
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root"/usr/share/doc/* \
  "$root"/usr/share/man/* "$root"/usr/share/locale/*
log "docker import $image"
tar -C "$root" -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV LANG=C.UTF-8' \
  --change 'CMD ["/bin/bash"]' \
  - "$image" >/dev/null
docker tag "$image" "$repo:latest"
printf '%s\n' "$image"
