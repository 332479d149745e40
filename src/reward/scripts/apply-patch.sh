# Applies a patch as the SWE-bench harness (5.x run_evaluation.py) does: `git apply`, then
# `git apply --3way`, `git apply --reject`, `patch --batch --forward --fuzz=5 -p1`, putting the tree
# back to pristine between attempts (a failed --reject or patch leaves hunks behind), and last
# accepting a tree the chain left fully patched (`git apply --check --reverse`).
# Exit 10 (git apply), 12 (--3way), 13 (--reject), 11 (patch), 14 (already applied), 1 (none).
# Arguments: the repository directory, the patch file.
cd "$1" || exit 3
g() { git -c safe.directory='*' "$@"; }
pristine() { g checkout -q -- . 2>/dev/null; g clean -fdq 2>/dev/null; }
if g apply --verbose "$2"; then exit 10; fi
pristine
if g apply --verbose --3way "$2"; then exit 12; fi
pristine
if g apply --verbose --reject "$2"; then exit 13; fi
pristine
if patch --batch --forward --fuzz=5 -p1 -i "$2"; then exit 11; fi
if g apply --check --reverse "$2" 2>/dev/null; then exit 14; fi
pristine
exit 1
