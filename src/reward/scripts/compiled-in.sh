# After a locked `cargo test` run: which compilation of the run read a hidden test file, by rustc's
# dep-info (every `*.d` file cargo's target directory got during the run: a crate's root first,
# then every file its compilation read, modules and `include_str!`/`include_bytes!`/`include!`
# alike). The hidden files watched are the locked ones outside every `src` folder (test patches
# put unit tests in src/ files, which the library compiles as its own). A crate whose root is
# itself hidden may read them all; an integration test target (lock-cargo.sh's list) only those
# it compiles as modules (ripgrep's tests/tests.rs declares `mod regression;`, the hidden
# tests/regression.rs), since a test binary's text of them would reach the others (files the
# test user writes). Any other crate of the repository (the library, a binary, an example), and
# a test crate reading a hidden file no module declaration names, through a link to it, or a file
# of the same content, compiled the tests' text into the code under test. Prints one line per
# finding: the crate's root, the file read, the hidden file.
# Arguments: the repository and the NUL-separated list of locked files (lock-tests.sh's).
repo=${1%/}
state=/swe_env_exec
target=$(. "$state/env" && printf '%s' "$SWE_ENV_CARGO_TARGET")
cd "$repo" || exit 3
declare -A real=() digest=() sizes=() tests=()
while IFS= read -r f; do [ -n "$f" ] && tests[$f]=1; done < "$state/test-roots"
while IFS= read -r -d '' f; do
  case "/$f/" in */src/*) continue ;; esac
  [ -f "$f" ] || continue
  real[$(realpath -- "$f")]=$f
  digest[$(sha256sum < "$f" | cut -d' ' -f1)]=$f
  sizes[$(stat -c %s -- "$f")]=1
done < "$2"
[ ${#real[@]} -gt 0 ] && [ -d "$target" ] || exit 0
# The locked file a path is, is linked to, or has the content of; nothing when none.
hidden() {
  local r
  r=$(realpath -- "$1" 2> /dev/null) || return
  if [ -n "${real[$r]+set}" ]; then
    printf '%s' "${real[$r]}"
  elif [ -f "$r" ] && [ -n "${sizes[$(stat -c %s -- "$r")]+set}" ]; then
    printf '%s' "${digest[$(sha256sum < "$r" | cut -d' ' -f1)]:-}"
  fi
}
# Whether a test crate compiles the file as a module: the file of its parent module (the crate's
# root for a file beside it, else `dir/mod.rs` or `dir.rs`) declares `mod <its name>`.
declared_module() {
  local root=$1 p=$2 dir name parents
  [ "$p" = "$(realpath -m -- "$p")" ] || return 1
  dir=$(dirname -- "$p")
  name=$(basename -- "$p" .rs)
  if [ "$name" = mod ]; then
    name=$(basename -- "$dir")
    dir=$(dirname -- "$dir")
  fi
  if [ "$dir" = "$(dirname -- "$root")" ]; then parents=("$root"); else parents=("$dir/mod.rs" "$dir.rs"); fi
  grep -Eqs "(^|[^A-Za-z0-9_])mod[[:space:]]+$name[[:space:]]*[;{]" -- "${parents[@]}"
}
find "$target" -type f -name '*.d' -newer "$state/env" -print0 | while IFS= read -r -d '' dep; do
  root=
  while IFS= read -r line; do
    if [ -z "$root" ]; then
      root=${line#*: }
      root=${root%% *}
      case $root in /*) ;; *) root=$repo/$root ;; esac
      case $root in "$repo"/*) ;; *) break ;; esac
      # Exempt by its own path: a crate whose root only links to (or copies) a hidden file is not.
      [ -n "${real[$root]+set}" ] && break
      test_crate=${tests[$root]:-}
      continue
    fi
    case $line in *:) ;; *) continue ;; esac
    p=${line%:}
    case $p in /*) ;; *) p=$repo/$p ;; esac
    case $p in "$repo"/*) ;; *) continue ;; esac
    h=$(hidden "$p")
    [ -n "$h" ] || continue
    [ -n "$test_crate" ] && declared_module "$root" "$p" && continue
    printf '%s\t%s\t%s\n' "${root#"$repo"/}" "${p#"$repo"/}" "$h"
  done < "$dep"
done | sort -u
exit 0
