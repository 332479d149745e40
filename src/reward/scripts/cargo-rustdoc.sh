#!/bin/bash
# cargo's RUSTDOC for a graded run (lock-cargo.sh installs it): `rustdoc --test` runs each doctest
# binary through cargo-exec.sh (`--runtool`, an unstable option, so RUSTC_BOOTSTRAP for this
# process and the doctests' compilation; cargo-exec.sh gives the doctest binaries the variable as it
# was). Anything else (documentation) is rustdoc's as it is.
state=/swe_env_exec
tool=$(. "$state/env" && printf '%s' "$SWE_ENV_RUSTDOC")
for arg in "$@"; do
  if [ "$arg" = --test ]; then
    export SWE_ENV_DOCTEST=1
    if [ -n "${RUSTC_BOOTSTRAP+set}" ]; then export SWE_ENV_RUSTC_BOOTSTRAP=$RUSTC_BOOTSTRAP; fi
    RUSTC_BOOTSTRAP=1 exec "$tool" "$@" -Z unstable-options --runtool "$state/cargo-exec"
  fi
done
exec "$tool" "$@"
