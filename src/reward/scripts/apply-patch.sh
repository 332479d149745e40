# Applies a patch as the SWE-bench harness does: `git apply`, then `patch --fuzz=5`; a dry run first
# so a failed attempt leaves the tree untouched. Exit 10 (git apply), 11 (patch), 1 (neither).
# Arguments: the repository directory, the patch file.
cd "$1" || exit 3
if git -c safe.directory='*' apply --verbose "$2"; then exit 10; fi
if patch --batch --fuzz=5 -p1 --dry-run -i "$2" >/dev/null 2>&1 && patch --batch --fuzz=5 -p1 -i "$2"; then exit 11; fi
exit 1
