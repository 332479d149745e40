#!/bin/bash
# $CC (or $CXX) of a graded `go test` run, where the image has a C compiler (lock-tests.sh installs
# it as cc or cxx beside the real compiler's command in cc.real or cxx.real): the C compiler the go
# tool runs for cgo, and the assembler and linker it runs in turn, read and write as root without
# capabilities. The hidden test files belong to another user with mode 0600 and do not open for
# them (no `.incbin`, `#include` or linker input of a test file), while the go tool's work
# directory, root's, does. Run by a test user (a test that builds with cgo itself), it is the
# real compiler.
state=/swe_env_exec
real=$(cat -- "$state/${0##*/}.real") || exit 127
# The command may carry arguments of its own (CC="gcc -m64"): split as the go tool splits it.
if [ "$EUID" != 0 ]; then exec $real "$@"; fi
exec setpriv --bounding-set=-all --inh-caps=-all --no-new-privs -- $real "$@"
