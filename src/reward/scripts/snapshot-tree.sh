# Lists every file of the working tree with its size and modification time, NUL-separated
# (`path\0size\0mtime\0`), .git included but for its object store. Only find runs: nothing the
# patch wrote is executed or obeyed (no git, no hooks, no filters, no attributes).
# Arguments: the repository directory.
cd "$1" || exit 3
find . -path ./.git/objects -prune -o \( -type f -o -type l \) -printf '%P\0%s\0%T@\0'
