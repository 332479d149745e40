#!/bin/bash
# `go -toolexec` for a graded run (lock-tests.sh installs it): every tool the go tool runs while it
# builds the test binaries, as root, passes through here. The hidden test files belong to another
# user with mode 0600, so only root's capabilities open them. Of the build's tools only the
# compiler, vet and Go's own bookkeeping keep those capabilities (they must read the tests); the
# compiler is refused any embedded file (`//go:embed`) that is a hidden test file or a copy of one,
# by what the go tool told it to embed. Every other tool the repository's files drive (the
# assembler, cgo, and whatever else) runs as root without capabilities, for which the hidden files
# do not open (nor do they for the C compiler: lock-tests.sh's go-cc.sh). Run by a test user (a
# test that runs `go` itself, where the locked files are absent), a tool runs as it is.
if [ "$EUID" != 0 ]; then exec "$@"; fi
state=/swe_env_exec

# The absolute paths a compile's -embedcfg maps embedded names to (the only absolute paths in it).
embedded_paths() {
  grep -o '"/[^"]*"' -- "$1" | sed 's/^"//; s/"$//; s/\\u0026/\&/g; s/\\u003c/</g; s/\\u003e/>/g'
}

# A file is a hidden test file when it is one (device and inode) or has one's content.
is_hidden() {
  local id sum
  id=$(stat -c '%d:%i' -- "$1" 2> /dev/null) || return 1
  grep -qxF -- "id $id" "$state/locked.ids" && return 0
  [ -s "$1" ] || return 1
  sum=$(sha256sum < "$1" 2> /dev/null) || return 1
  grep -qxF -- "sum ${sum%% *}" "$state/locked.ids"
}

refuse_hidden_embeds() {
  local cfg="" prev="" arg path
  for arg in "$@"; do
    case $arg in -embedcfg=*) cfg=${arg#-embedcfg=} ;; esac
    [ "$prev" = -embedcfg ] && cfg=$arg
    prev=$arg
  done
  [ -n "$cfg" ] || return 0
  while IFS= read -r path; do
    if is_hidden "$path"; then
      echo "swe-env: the code under test embeds ${path}, a hidden test file (or a copy of one): not compiled" >&2
      return 1
    fi
  done < <(embedded_paths "$cfg")
}

case ${1##*/} in
  compile)
    refuse_hidden_embeds "$@" || exit 1
    exec "$@"
    ;;
  vet | link | buildid | pack | cover | covdata) exec "$@" ;;
  *) exec setpriv --bounding-set=-all --inh-caps=-all --no-new-privs -- "$@" ;;
esac
