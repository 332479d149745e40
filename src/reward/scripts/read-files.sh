# Prints, for each path of a NUL-separated list, its content in the pristine tree (HEAD) and in the
# working tree, length-prefixed: `H <bytes>\n<content>` then `W <bytes>\n<content>`, or `H -\n` /
# `W -\n` when absent, `H big\n` / `W big\n` over the size limit, `W link\n` for a symbolic link. Git runs without hooks or
# fsmonitor and reads blobs without filters; .git is known untouched here.
# Arguments: the repository directory, the list, the size limit in bytes.
# The grader's own tools, never the repository's: PATH without relative entries (an empty one is
# the working directory) or directories inside the repository, where the patch could put a `git`.
PATH=$(set -f; IFS=:; for p in $PATH; do case $p in "${1%/}" | "${1%/}"/*) ;; /*) printf '%s:' "$p" ;; esac; done)
PATH=${PATH%:}; PATH=${PATH:-/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin}
cd "$1" || exit 3
limit=$3
git_() { git -c safe.directory='*' -c core.hooksPath=/dev/null -c core.fsmonitor=false "$@"; }
while IFS= read -r -d '' f; do
  if size=$(git_ cat-file -s "HEAD:$f" 2>/dev/null); then
    if [ "$size" -gt "$limit" ]; then printf 'H big\n'; else printf 'H %d\n' "$size"; git_ cat-file blob "HEAD:$f"; fi
  else
    printf 'H -\n'
  fi
  if [ -L "$f" ]; then
    printf 'W link\n'
  elif [ -f "$f" ]; then
    size=$(stat -c %s -- "$f")
    if [ "$size" -gt "$limit" ]; then printf 'W big\n'; else printf 'W %d\n' "$size"; head -c "$size" -- "$f"; fi
  else
    printf 'W -\n'
  fi
done < "$2"
