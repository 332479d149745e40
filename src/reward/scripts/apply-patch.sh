# Applies a patch as the SWE-bench harness (5.x run_evaluation.py) does: `git apply`, then
# `git apply --3way`, `git apply --reject`, `patch --batch --forward --fuzz=5 -p1`, putting the tree
# back to pristine between attempts (a failed --reject or patch leaves hunks behind), and last
# accepting a tree the chain left fully patched (`git apply --check --reverse`).
# The index is put back as it was whatever happens: the chain's own git commands refresh or stage
# it, and the grader refuses any change inside .git it did not make.
# Exit 10 (git apply), 12 (--3way), 13 (--reject), 11 (patch), 14 (already applied), 1 (none),
# 15 (patch wrote inside .git and failed: no git runs after it).
# Arguments: the repository directory, the patch file.
# The grader's own tools, never the repository's: PATH without relative entries (an empty one is
# the working directory) or directories inside the repository, where the patch could put a `git`.
PATH=$(set -f; IFS=:; for p in $PATH; do case $p in "${1%/}" | "${1%/}"/*) ;; /*) printf '%s:' "$p" ;; esac; done)
PATH=${PATH%:}; PATH=${PATH:-/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin}
cd "$1" || exit 3
saved=$(mktemp)
cp -p .git/index "$saved" 2>/dev/null || saved=""
done_with() {
  if [ -n "$saved" ]; then cp -p "$saved" .git/index && rm -f "$saved"; fi
  if [ -n "$cfg" ]; then rm -f "$cfg"; fi
  exit "$1"
}
# No hook, fsmonitor or filter of the repository runs: `patch` may have written .git/config (the
# grader refuses such a patch afterwards), so the pristine config is put back before every git.
cfg=$(mktemp)
cp -p .git/config "$cfg" 2>/dev/null || cfg=""
# Written back only when it differs: a copy over an identical file still copies it up into the
# container's writable layer, which Podman's engine then lists as changed (Docker's compares it
# with the image's), and the closed-world check would refuse the change of .git/config.
g() {
  if [ -n "$cfg" ] && ! cmp -s "$cfg" .git/config; then cp -p "$cfg" .git/config; fi
  git -c safe.directory='*' -c core.hooksPath=/dev/null -c core.fsmonitor=false "$@"
}
pristine() { g checkout -q -- . 2>/dev/null; g clean -fdq 2>/dev/null; }
if g apply --verbose "$2"; then done_with 10; fi
pristine
if g apply --verbose --3way "$2"; then done_with 12; fi
pristine
if g apply --verbose --reject "$2"; then done_with 13; fi
pristine
# `patch` has no rule against .git: what it writes there must never be read by git, or a
# `commondir` file moves git's configuration (a clean filter, the program it runs) into the patch's
# own files. Such a patch is refused: when `patch` fails after writing there, no git runs again.
gitdir() { find .git -printf '%P\t%s\t%T@\t%y\n' 2>/dev/null | LC_ALL=C sort; }
untouched=$(gitdir)
if patch --batch --forward --fuzz=5 -p1 -i "$2"; then done_with 11; fi
if [ "$(gitdir)" != "$untouched" ]; then done_with 15; fi
if g apply --check --reverse "$2" 2>/dev/null; then done_with 14; fi
pristine
done_with 1
