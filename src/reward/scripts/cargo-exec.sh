#!/bin/bash
# cargo's target runner for a graded run (lock-cargo.sh installs it; rustdoc's `--runtool` for the
# doctests): cargo, as root, built the test binaries from the hidden test files into its target
# directory; each binary runs as the unprivileged test user with no way back to root (no_new_privs,
# no capabilities). The target directory is made root's, its folders searchable but not listable
# and its files unreadable to others (executables keep their execute bits), right before each
# binary starts: the binary runs where cargo put it (`current_exe()` and the binaries beside it, as
# tests find them), executable, not readable. A binary elsewhere (a doctest's, in rustdoc's own
# folder) runs from a copy the test user may execute, not read. Arguments: the binary and its
# flags; cwd, environment, output and exit status are the binary's own. Run by a test user (a test
# that runs `cargo test` itself), it runs the binary as it is.
if [ "$EUID" != 0 ]; then exec "$@"; fi
state=/swe_env_exec
bin=$1
shift
. "$state/env"
target=$SWE_ENV_CARGO_TARGET
# What cargo wrote since (under the run's umask 077): root's alone but for the execute bits.
chmod -R go-rw,go+X -- "$target" 2> /dev/null
case $bin in
  "$target"/*) ;;
  *)
    dir=$(mktemp -d "$state/bin/XXXXXXXX") || exit 126
    chmod 0711 "$dir" && cp -- "$bin" "$dir/" && chmod 0111 "$dir/${bin##*/}" || exit 126
    bin=$dir/${bin##*/}
    ;;
esac
# rustdoc needed nightly options to take this runner (cargo-rustdoc.sh): a doctest gets the
# variable as the run had it.
if [ -n "${SWE_ENV_DOCTEST:-}" ]; then
  if [ -n "${SWE_ENV_RUSTC_BOOTSTRAP+set}" ]; then export RUSTC_BOOTSTRAP=$SWE_ENV_RUSTC_BOOTSTRAP; else unset RUSTC_BOOTSTRAP; fi
  unset SWE_ENV_DOCTEST SWE_ENV_RUSTC_BOOTSTRAP
fi
umask "$SWE_ENV_UMASK"
exec setpriv --reuid="$SWE_ENV_TEST_UID" --regid="$SWE_ENV_TEST_UID" --clear-groups --no-new-privs \
  --inh-caps=-all --bounding-set=-all -- "$bin" "$@"
