# Makes the hidden test sources unreadable to the code under test of a `go test` run (go-exec.sh runs
# each test binary as the test user). They belong to a keeper, a user of their own, with mode 0600,
# and their folders up to the repository to root (1777: the tests may create files beside them,
# not remove or rename them): only root's capabilities open them, which the go tool's compiler
# keeps and the rest of the build loses (go-toolexec.sh, go-cc.sh: no compile-time reads of the
# tests). The rest of the repository becomes the test user's (the tests write in it, as they did
# as root), and what else holds the tests' text or compiled form root's alone (the grading
# directory, the go tool's build cache; its work directory already is). The test user gets a home
# of its own (a build cache for tests that run `go` themselves, which see the locked files as
# absent through an overlay) and the module cache stays reachable.
# Exit 0 when the run may use go-exec.sh; 10 when setpriv is missing or cannot switch users (the
# run goes on as before, without the guarantee). Nothing is printed on success.
# Arguments: the repository, the NUL-separated list of files to lock, the run's environment
# (a script), the test user's uid (its gid is the same number), go-exec.sh's text, the go
# overlay (JSON) that deletes the locked files for the `go` commands the tests run, the keeper's
# uid, go-toolexec.sh's text, go-cc.sh's text.
repo=${1%/}
uid=$4
keeper=$7
cd "$repo" || exit 3
eval "$3" > /dev/null 2>&1 < /dev/null
cd "$repo" || exit 3
setpriv --reuid="$uid" --regid="$uid" --clear-groups --no-new-privs --bounding-set=-all true > /dev/null 2>&1 || exit 10
state=/swe_env_exec
rm -rf "$state" && mkdir -m 0711 "$state" "$state/bin" || exit 4
install -d -m 0700 -o "$uid" -g "$uid" "$state/home" "$state/home/.cache" || exit 4
printf '%s' "$5" > "$state/go-exec" && chmod 0755 "$state/go-exec" || exit 4
# The identity and settings `git commit` in a test's own scratch repository reads from the home.
if [ -f "${HOME:-/root}/.gitconfig" ]; then
  install -m 0600 -o "$uid" -g "$uid" -- "${HOME:-/root}/.gitconfig" "$state/home/.gitconfig" || exit 4
fi
printf '%s' "$6" > "$state/overlay.json" && chmod 0644 "$state/overlay.json" || exit 4
printf '%s' "$8" > "$state/go-toolexec" && chmod 0755 "$state/go-toolexec" || exit 4
go_cc=$9
# The C compilers the go tool runs (go env CC and CXX) as go-cc.sh, where the image has them: under
# their own names first on PATH, so the go tool's build cache (keyed by the command) holds; a
# command given by its path is replaced in build-env, which the run sources after its environment.
install_cc() {
  local cmd real name
  cmd=$(go env "$1" 2> /dev/null)
  real=$(command -v -- "${cmd%% *}" 2> /dev/null) || return 0
  name=${real##*/}
  mkdir -p "$state/cc-bin" && chmod 0755 "$state/cc-bin" || return 1
  printf '%s' "$real" > "$state/cc-bin/$name.real" && printf '%s' "$go_cc" > "$state/cc-bin/$name" || return 1
  chmod 0644 "$state/cc-bin/$name.real" && chmod 0755 "$state/cc-bin/$name" || return 1
  case ${cmd%% *} in
    */*) printf 'export %s=%q\n' "$1" "$state/cc-bin/$name${cmd#"${cmd%% *}"}" >> "$state/build-env" ;;
  esac
}
: > "$state/build-env" && chmod 0644 "$state/build-env" || exit 4
if command -v go > /dev/null 2>&1; then
  install_cc CC && install_cc CXX || exit 4
  if [ -d "$state/cc-bin" ]; then printf 'export PATH=%q:"$PATH"\n' "$state/cc-bin" >> "$state/build-env"; fi
fi
: > "$state/locked.ids" && chmod 0600 "$state/locked.ids" || exit 4
chmod 0700 /swe_env 2> /dev/null
# A `git` the tests or the go tool run finds the repository owned by someone else either way.
git config --system --add safe.directory '*' > /dev/null 2>&1
# A file the change or its install left that cannot change owner stays root's: the tests may not
# write it, which is their failure, not the grading's.
chown -hR "$uid:$uid" "$repo" 2> /dev/null
while IFS= read -r -d '' f; do
  [ -f "$repo/$f" ] || continue
  chown -h "$keeper:$keeper" "$repo/$f" && chmod 0600 "$repo/$f" || exit 6
  # What go-toolexec.sh knows them by: the file itself, and its content (a copy).
  printf 'id %s\nsum %s\n' "$(stat -c '%d:%i' -- "$repo/$f")" "$(sha256sum < "$repo/$f" | cut -d' ' -f1)" >> "$state/locked.ids" || exit 6
  d=$(dirname -- "$f")
  while :; do
    chown -h 0:0 "$repo/$d" && chmod 1777 "$repo/$d" || exit 6
    [ "$d" = . ] && break
    d=$(dirname -- "$d")
  done
done < "$2"
if command -v go > /dev/null 2>&1; then
  cache=$(go env GOCACHE 2> /dev/null)
  modcache=$(go env GOMODCACHE 2> /dev/null)
  gopath=$(go env GOPATH 2> /dev/null)
  if [ -n "$cache" ] && [ "$cache" != off ]; then mkdir -p -- "$cache" && chown 0:0 -- "$cache" && chmod 0700 -- "$cache"; fi
  # The module cache's folders up to / may be searched (not listed): /root's 0700 hid it.
  d=$modcache
  while [ -n "$d" ] && [ "$d" != / ] && [ "$d" != . ]; do
    [ -d "$d" ] && chmod o+x -- "$d"
    d=$(dirname -- "$d")
  done
fi
if [ -n "${TMPDIR:-}" ] && [ -d "$TMPDIR" ]; then chmod 1777 -- "$TMPDIR"; fi
{
  printf 'SWE_ENV_TEST_UID=%q\n' "$uid"
  printf 'export HOME=%q\n' "$state/home"
  printf 'export GOCACHE=%q\n' "$state/home/.cache/go-build"
  if [ -n "${modcache:-}" ]; then printf 'export GOMODCACHE=%q\n' "$modcache"; fi
  if [ -n "${gopath:-}" ]; then printf 'export GOPATH=%q\n' "$gopath"; fi
} > "$state/env" || exit 4
exit 0
