#!/bin/bash
# The C compiler of a graded `go test` run, where the image has one (lock-tests.sh installs this
# under the compiler's own name, first on PATH, with the real command beside it in NAME.real): the
# C compiler the go tool runs for cgo, and the assembler and linker it runs in turn, read and write
# as root without capabilities. The hidden test files belong to another user with mode 0600 and
# do not open for them (no `.incbin`, `#include` or linker input of a test file), while the go
# tool's work directory, root's, does. The go tool knows the compiler by the same name and output,
# so its build cache holds as before. Run by a test user (a test that builds with cgo itself), it
# is the real compiler.
real=$(cat -- "$0.real") || exit 127
if [ "$EUID" != 0 ]; then exec "$real" "$@"; fi
exec setpriv --bounding-set=-all --inh-caps=-all --no-new-privs -- "$real" "$@"
