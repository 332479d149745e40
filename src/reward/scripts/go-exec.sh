#!/bin/bash
# `go test -exec` for a graded run (lock-tests.sh installs it): the go tool, as root, built the test
# binary from the hidden test files; the binary runs as the unprivileged test user, from a copy it
# may execute but not read (mode 0111, root's), with no way back to root (no_new_privs, no
# capabilities), so neither the hidden _test.go files (mode 0600, root's), the go tool's work and
# build cache (root's, 0700), the grading directory, nor the binary itself open for the code under
# test. Arguments: the test binary and its flags; cwd, environment, output and exit status are the
# binary's own. Run by a test user (a test that runs `go test` itself), it runs the binary as it is.
if [ "$EUID" != 0 ]; then exec "$@"; fi
state=/swe_env_exec
bin=$1
shift
dir=$(mktemp -d "$state/bin/XXXXXXXX") || exit 126
chmod 0711 "$dir" && cp -- "$bin" "$dir/" && chmod 0111 "$dir/${bin##*/}" || exit 126
# The flags that brought the binary here are not the tests' (a `go run` of theirs runs as they do).
# A `go` the tests run themselves (build, vet, run) sees the locked files as absent (-overlay), not
# as files it cannot open: their package builds as it does without its tests.
added="-exec=$state/go-exec -toolexec=$state/go-toolexec"
GOFLAGS=${GOFLAGS% $added}
GOFLAGS=${GOFLAGS#$added}
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-overlay=$state/overlay.json"
. "$state/env"
# `-coverprofile` has the binary write its profile into the go tool's work directory (root's,
# 0700, beside the binary), which the go tool merges afterwards: the binary writes it in a folder
# of the test user's instead, and the go tool reads it there through a link at the path it named.
args=()
for arg in "$@"; do
  case $arg in
    -test.coverprofile=/*)
      out=$(mktemp -d "$state/home/.cover-XXXXXXXX") && chown "$SWE_ENV_TEST_UID:$SWE_ENV_TEST_UID" -- "$out" || exit 126
      ln -sfn -- "$out/${arg##*/}" "${arg#*=}" || exit 126
      arg="-test.coverprofile=$out/${arg##*/}"
      ;;
  esac
  args+=("$arg")
done
exec setpriv --reuid="$SWE_ENV_TEST_UID" --regid="$SWE_ENV_TEST_UID" --clear-groups --no-new-privs \
  --inh-caps=-all --bounding-set=-all -- "$dir/${bin##*/}" "${args[@]}"
