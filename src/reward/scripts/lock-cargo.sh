# After lock-tests.sh, for a `cargo test` run: installs cargo-exec.sh (the target runner that runs
# each test binary as the test user) and cargo-rustdoc.sh (rustdoc taking it for the doctests),
# and makes cargo's target directory root's, its folders searchable and its files unreadable to
# others (executables keep their execute bits): it holds the compiled tests, and the tests' own
# dep-info. The folders above it become searchable, so the test user reaches the binaries there.
# Prints the environment variable naming the host's runner (CARGO_TARGET_<TRIPLE>_RUNNER).
# Exit 0 on success; 10 when rustc cannot say the host's target triple (the run goes on as
# before, without the guarantee); 20, printing the path, when the target directory inside the
# repository is a file or a link.
# Arguments: the repository, the run's environment (a script), cargo-exec.sh's and
# cargo-rustdoc.sh's text.
repo=${1%/}
cd "$repo" || exit 3
eval "$2" > /dev/null 2>&1 < /dev/null
cd "$repo" || exit 3
state=/swe_env_exec
host=$(rustc -vV 2> /dev/null | sed -n 's/^host: //p')
[ -n "$host" ] || exit 10
metadata=$(cargo metadata --no-deps --format-version 1 --offline 2> /dev/null)
target=$(printf '%s' "$metadata" | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
[ -n "$target" ] || target=${CARGO_TARGET_DIR:-$repo/target}
case $target in /*) ;; *) target=$repo/$target ;; esac
rustdoc=${RUSTDOC:-$(command -v rustdoc)}
printf '%s' "$3" > "$state/cargo-exec" && chmod 0755 "$state/cargo-exec" || exit 4
printf '%s' "$4" > "$state/cargo-rustdoc" && chmod 0755 "$state/cargo-rustdoc" || exit 4
# Something else than a folder where cargo builds, inside the repository, is the change's (a file,
# a link): cargo cannot build there, and a link would have the lock change whatever it points to.
if [ -L "$target" ] || { [ -e "$target" ] && [ ! -d "$target" ]; }; then
  case $target in "$repo"/*) printf '%s\n' "${target#"$repo"/}"; exit 20 ;; esac
fi
mkdir -p -- "$target" && chown -hR 0:0 -- "$target" && chmod -R go-rw,go+X -- "$target" || exit 4
d=$(dirname -- "$target")
while [ "$d" != / ] && [ "$d" != . ]; do
  chmod o+x -- "$d" || exit 4
  d=$(dirname -- "$d")
done
# The integration test targets' roots (compiled-in.sh lets them read the hidden files they hold
# as modules): cargo metadata's targets of kind "test", else cargo's convention (tests/*.rs).
if [ -n "$metadata" ]; then
  printf '%s' "$metadata" | grep -o '"kind":\["test"\][^}]*"src_path":"[^"]*"' | sed 's/.*"src_path":"\([^"]*\)"/\1/'
else
  printf '%s\n' "$repo"/tests/*.rs "$repo"/tests/*/main.rs
fi > "$state/test-roots" || exit 4
{
  printf 'SWE_ENV_CARGO_TARGET=%q\n' "$target"
  printf 'SWE_ENV_RUSTDOC=%q\n' "$rustdoc"
  printf 'SWE_ENV_UMASK=%q\n' "$(umask)"
} >> "$state/env" || exit 4
printf 'CARGO_TARGET_%s_RUNNER\n' "$(printf '%s' "$host" | tr 'a-z.-' 'A-Z__')"
exit 0
