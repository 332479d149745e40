# Restores the files the test patch touches to the base commit (removing those it creates), runs
# the plan's steps that the harness's eval script has between that reset and the test patch (a 5.x
# row's image assets; their status is not ours to judge: the harness goes on whatever it is), then
# applies the test patch. The lists are NUL-separated files. Exit 0 on success.
# Arguments: the repository directory, the base commit, the test patch, the modified list, the new
# list, the steps before the test patch (a script, '' for none).
steps_path=$PATH
# The grader's own tools, never the repository's: PATH without relative entries (an empty one is
# the working directory) or directories inside the repository, where the patch could put a `git`.
PATH=$(set -f; IFS=:; for p in $PATH; do case $p in "${1%/}" | "${1%/}"/*) ;; /*) printf '%s:' "$p" ;; esac; done)
PATH=${PATH%:}; PATH=${PATH:-/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin}
cd "$1" || exit 3
while IFS= read -r -d '' f; do
  git -c safe.directory='*' -c core.hooksPath=/dev/null -c core.fsmonitor=false checkout -q "$2" -- "$f" || exit 4
done < "$4"
while IFS= read -r -d '' f; do rm -rf -- "$f"; done < "$5"
if [ -n "${6:-}" ]; then
  (PATH=$steps_path; eval "$6") < /dev/null
  cd "$1" || exit 3
fi
if [ -s "$3" ]; then
  git -c safe.directory='*' -c core.hooksPath=/dev/null -c core.fsmonitor=false apply --verbose "$3" || exit 5
fi
