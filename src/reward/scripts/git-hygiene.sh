# Run at reset in the agent's container: nothing after the base commit may be reachable (agents do
# run `git log --all` to find the answer). Deletes refs not merged into HEAD, remotes, stashes,
# reflogs and worktrees; prints `HEAD <sha>` and a `removed <ref>` line per deletion.
# Exit 2 when base_commit is not an ancestor of HEAD (the image does not match the task).
# Arguments: the repository directory, the base commit.
cd "$1" || exit 3
git() { command git -c safe.directory='*' "$@"; }
head=$(git rev-parse --verify -q HEAD) || exit 4
git merge-base --is-ancestor "$2" "$head" 2>/dev/null || { echo "base $2 is not an ancestor of HEAD $head"; exit 2; }
for remote in $(git remote); do
  git remote remove "$remote" >/dev/null 2>&1 && echo "removed remote $remote"
done
git for-each-ref --no-merged "$head" --format='%(refname)' | while IFS= read -r ref; do
  git update-ref -d "$ref" && echo "removed $ref"
done
git stash clear 2>/dev/null
git reflog expire --expire=now --all 2>/dev/null
git worktree prune 2>/dev/null
rm -rf "$(git rev-parse --git-dir)/logs" "$(git rev-parse --git-dir)/ORIG_HEAD" "$(git rev-parse --git-dir)/FETCH_HEAD"
echo "HEAD $head"
