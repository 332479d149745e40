# Prints the agent's change as a binary-safe diff against the base commit, new files included.
# Nothing is read from the work tree and no filter, attribute, hook or config of the change is
# obeyed: the blobs come as one pack (no filter can touch them), a throw-away index is built from the base
# tree by plumbing (deletions, then `mode sha<TAB>path` records), written as a tree, and that tree is
# diffed against the base by diff-tree with the pristine checkout's own index and attributes.
# Arguments: the repository directory, the base commit, the capture's input directory, which holds
#   objects.pack  the blobs, one git pack       objects.ids  their SHA-1s as computed by the server
#   deleted       paths gone (NUL-separated)    index-info   `mode sha<TAB>path` records (NUL-separated)
# Exit codes say which step failed: 3 repository, 4 base tree, 5 deletions, 6 blobs, 7 index, 8 tree, 9 diff.
cd "$1" || { echo "cannot enter $1" >&2; exit 3; }
git() { command git -c safe.directory='*' -c core.quotepath=off "$@"; }
in=$3
export GIT_LITERAL_PATHSPECS=1
idx=$in/index
rm -f "$idx"
GIT_INDEX_FILE=$idx git read-tree "$2" || exit 4
if [ -s "$in/deleted" ]; then
  xargs -0 -r env GIT_INDEX_FILE="$idx" git -c safe.directory='*' ls-files -z -- < "$in/deleted" > "$in/deleted.tracked" || exit 5
  GIT_INDEX_FILE=$idx git update-index -z --force-remove --stdin < "$in/deleted.tracked" || exit 5
fi
if [ -s "$in/objects.pack" ]; then
  git index-pack --stdin < "$in/objects.pack" > /dev/null || exit 6
  # Every id the server computed is now a blob of the repository (git hashed the pack's content itself).
  git cat-file --batch-check='%(objectname) %(objecttype)' < "$in/objects.ids" > "$in/objects.found" || exit 6
  sed 's/$/ blob/' "$in/objects.ids" | cmp -s - "$in/objects.found" || { echo "the repository's object ids are not the SHA-1s computed for the blobs" >&2; exit 6; }
fi
if [ -s "$in/index-info" ]; then
  GIT_INDEX_FILE=$idx git update-index -z --index-info < "$in/index-info" || exit 7
fi
tree=$(GIT_INDEX_FILE=$idx git write-tree) || exit 8
git diff-tree -r -p --binary --no-color --no-ext-diff --no-textconv --no-renames "$2" "$tree" || exit 9
