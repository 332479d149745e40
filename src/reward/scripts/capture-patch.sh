# Prints the agent's change as a binary-safe diff against the base commit, new files included.
# A throw-away index is used so the agent's own index is left as it was.
# Arguments: the repository directory, the base commit.
cd "$1" || { echo "cannot enter $1" >&2; exit 3; }
git() { command git -c safe.directory='*' -c core.quotepath=off "$@"; }
idx=$(mktemp) || exit 4
trap 'rm -f "$idx"' EXIT
cp "$(git rev-parse --git-path index)" "$idx" 2>/dev/null || rm -f "$idx"
export GIT_INDEX_FILE="$idx"
git add -A . >/dev/null || exit 5
git diff --cached --binary --no-color --no-ext-diff --no-textconv --no-renames "$2" || exit 6
