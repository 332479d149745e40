# Prints which paths of a change the pristine checkout's ignore rules leave out of git's view
# (its .gitignore files, info/exclude and core.excludesFile): `I <path>` for each path they ignore,
# then `T <path>` for each file the base commit tracks at or under one of those (a tracked file is
# part of a change whatever the rules say), each record NUL-terminated. Nothing of the change is read.
# Arguments: the repository directory, the base commit, the input directory holding `candidates`
#   (NUL-separated paths relative to the repository, a directory's with a trailing slash).
# Exit codes say which step failed: 3 repository, 4 the ignore check, 5 the tracked files.
cd "$1" || { echo "cannot enter $1" >&2; exit 3; }
in=$3
command git -c safe.directory='*' check-ignore --no-index -z --stdin < "$in/candidates" > "$in/ignored"
case $? in 0 | 1) ;; *) exit 4 ;; esac
[ -s "$in/ignored" ] || exit 0
sed -z 's#^#I #' "$in/ignored" || exit 4
sed -z 's#/$##' "$in/ignored" |
  GIT_LITERAL_PATHSPECS=1 xargs -0 -r git -c safe.directory='*' -c core.quotepath=off ls-tree -r -z --name-only "$2" -- > "$in/tracked" || exit 5
sed -z 's#^#T #' "$in/tracked" || exit 5
