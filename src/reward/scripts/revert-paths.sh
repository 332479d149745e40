# Puts paths back as they are in the pristine tree (HEAD of the task image): a tracked file is
# checked out again, a file the patch created is removed. The list is a NUL-separated file.
# Hooks and fsmonitor are off: .git is known untouched here (a patch writing in .git is rejected
# before this runs), and no program of the repository runs.
# Arguments: the repository directory, the list.
# The grader's own tools, never the repository's: PATH without relative entries (an empty one is
# the working directory) or directories inside the repository, where the patch could put a `git`.
PATH=$(set -f; IFS=:; for p in $PATH; do case $p in "${1%/}" | "${1%/}"/*) ;; /*) printf '%s:' "$p" ;; esac; done)
PATH=${PATH%:}; PATH=${PATH:-/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin}
cd "$1" || exit 3
git_() { git -c safe.directory='*' -c core.hooksPath=/dev/null -c core.fsmonitor=false "$@"; }
while IFS= read -r -d '' f; do
  if git_ cat-file -e "HEAD:$f" 2>/dev/null; then
    git_ checkout -q HEAD -- "$f" || exit 4
  else
    rm -rf -- "$f"
  fi
done < "$2"
