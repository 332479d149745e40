# After a locked `cargo test` run: which compilation of the run read a hidden test file, by rustc's
# dep-info (every `*.d` file cargo's target directory got during the run: a crate's root first,
# then every file its compilation read, modules and `include_str!`/`include_bytes!`/`include!`
# alike). A crate whose root is a hidden test file (an integration test) may read what it likes;
# any other crate of the repository (the library, a binary) that read a hidden test file outside
# every `src` folder (test patches put unit tests in src/ files, which the crate compiles as its
# own), through a link to it, or a file of the same content, compiled the tests' text into the
# code under test. Prints one line per finding: the crate's root, the file read, the hidden file.
# Arguments: the repository and the NUL-separated list of locked files (lock-tests.sh's).
repo=${1%/}
state=/swe_env_exec
target=$(. "$state/env" && printf '%s' "$SWE_ENV_CARGO_TARGET")
cd "$repo" || exit 3
declare -A real=() digest=() sizes=()
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
      continue
    fi
    case $line in *:) ;; *) continue ;; esac
    p=${line%:}
    case $p in /*) ;; *) p=$repo/$p ;; esac
    case $p in "$repo"/*) ;; *) continue ;; esac
    h=$(hidden "$p")
    [ -n "$h" ] && printf '%s\t%s\t%s\n' "${root#"$repo"/}" "${p#"$repo"/}" "$h"
  done < "$dep"
done | sort -u
exit 0
