# Lists every file of the working tree with its size and modification time, NUL-separated
# (`path\0size\0mtime\0`), .git included but for its object store. Only find runs: nothing the
# patch wrote is executed or obeyed (no git, no hooks, no filters, no attributes).
# Arguments: the repository directory.
# The grader's own tools, never the repository's: PATH without relative entries (an empty one is
# the working directory) or directories inside the repository, where the patch could put a `git`.
PATH=$(set -f; IFS=:; for p in $PATH; do case $p in "${1%/}" | "${1%/}"/*) ;; /*) printf '%s:' "$p" ;; esac; done)
PATH=${PATH%:}; PATH=${PATH:-/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin}
cd "$1" || exit 3
find . -path ./.git/objects -prune -o \( -type f -o -type l \) -printf '%P\0%s\0%T@\0'
