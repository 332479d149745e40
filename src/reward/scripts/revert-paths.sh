# Puts paths back as they are in the pristine tree (HEAD of the task image): a tracked file is
# checked out again, a file the patch created is removed. The list is a NUL-separated file.
# Hooks and fsmonitor are off: .git is known untouched here (a patch writing in .git is rejected
# before this runs), and no program of the repository runs.
# Arguments: the repository directory, the list.
cd "$1" || exit 3
git_() { git -c safe.directory='*' -c core.hooksPath=/dev/null -c core.fsmonitor=false "$@"; }
while IFS= read -r -d '' f; do
  if git_ cat-file -e "HEAD:$f" 2>/dev/null; then
    git_ checkout -q HEAD -- "$f" || exit 4
  else
    rm -rf -- "$f"
  fi
done < "$2"
