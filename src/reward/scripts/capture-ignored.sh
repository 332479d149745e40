# Prints which paths of a change git would leave out of the agent's own view of it: the ignore
# rules of the pristine checkout with the change's own ignore files in place (its .gitignore files,
# put into this checkout's work tree before this runs; info/exclude and core.excludesFile), and the
# build tools' outputs beside the manifests the base commit tracks (cargo's `target` beside a
# Cargo.toml...) where it tracks nothing, whatever the rules say. `I <path>` for each path left
# out, then `T <path>` for each file the base commit tracks at or under one of those (a tracked
# file is part of a change whatever the rules say), each record NUL-terminated. Nothing of the
# change but its ignore files is read.
# Arguments: the repository directory, the base commit, the input directory holding `candidates`
#   (NUL-separated paths relative to the repository, a directory's with a trailing slash),
#   `ignore-deleted` (the ignore files the change removed, NUL-separated) and `outputs`
#   (`manifest<TAB>output` records, NUL-separated), and an extended regular expression matching
#   the manifests' paths.
# Exit codes say which step failed: 3 repository, 4 the ignore check, 5 the tracked files, 6 the
# build outputs.
cd "$1" || { echo "cannot enter $1" >&2; exit 3; }
in=$3
git() { command git -c safe.directory='*' -c core.quotepath=off "$@"; }
if [ -s "$in/ignore-deleted" ]; then
  xargs -0 -r rm -f -- < "$in/ignore-deleted" || exit 4
fi
# A pattern naming one path from the repository's root: the glob characters in it escaped.
anchored() {
  printf '/%s\n' "$(printf '%s' "$1" | sed 's/[][*?\\]/\\&/g')"
}
if [ -s "$in/outputs" ]; then
  exclude=$(git rev-parse --git-path info/exclude) || exit 6
  mkdir -p -- "$(dirname -- "$exclude")" || exit 6
  mapfile -d '' rules < "$in/outputs"
  git ls-tree -r -z --name-only "$2" > "$in/tree" || exit 6
  while IFS= read -r -d '' manifest; do
    case $manifest in *$'\n'*) continue ;; esac
    name=${manifest##*/}
    dir=${manifest%"$name"}
    for rule in "${rules[@]}"; do
      [ "${rule%%$'\t'*}" = "$name" ] || continue
      output=$dir${rule#*$'\t'}
      # A project that tracks files there keeps them as its source (a committed vendor/).
      [ -z "$(GIT_LITERAL_PATHSPECS=1 git ls-tree --name-only "$2" -- "$output")" ] || continue
      anchored "$output"
    done
  done < <(grep -z -E -- "$4" "$in/tree") >> "$exclude" || exit 6
fi
git check-ignore --no-index -z --stdin < "$in/candidates" > "$in/ignored"
case $? in 0 | 1) ;; *) exit 4 ;; esac
[ -s "$in/ignored" ] || exit 0
sed -z 's#^#I #' "$in/ignored" || exit 4
sed -z 's#/$##' "$in/ignored" |
  GIT_LITERAL_PATHSPECS=1 xargs -0 -r git -c safe.directory='*' -c core.quotepath=off ls-tree -r -z --name-only "$2" -- > "$in/tracked" || exit 5
sed -z 's#^#T #' "$in/tracked" || exit 5
