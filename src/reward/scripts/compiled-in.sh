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
# The locked files the repository paths on stdin (NUL-separated) are, are linked to, or have the
# content of: "path<TAB>locked file" per hit. A few processes for the whole list, not several per
# path: a crate's dep-info can name tens of thousands of files (`include_bytes!` of each), and
# the read must end within its limit whatever the change compiled in.
hidden_of() {
  local -a paths=() resolved=() same=() sized=()
  local i n size h
  mapfile -d '' -t paths
  [ ${#paths[@]} -gt 0 ] || return 0
  mapfile -d '' -t resolved < <(printf '%s\0' "${paths[@]}" | xargs -0 realpath -z -m --)
  [ ${#resolved[@]} -eq ${#paths[@]} ] || return 3
  for ((i = 0; i < ${#paths[@]}; i++)); do
    if [ -n "${real[${resolved[i]}]+set}" ]; then
      printf '%s\t%s\n' "${paths[i]}" "${real[${resolved[i]}]}"
    elif [ -f "${resolved[i]}" ]; then
      same+=("$i")
    fi
  done
  [ ${#same[@]} -gt 0 ] || return 0
  # Only a file of a locked file's size is hashed.
  mapfile -d '' -t sized < <(for i in "${same[@]}"; do printf '%s\0' "${resolved[i]}"; done | xargs -0 stat -L --printf '%s\0' --)
  [ ${#sized[@]} -eq ${#same[@]} ] || return 3
  for ((n = 0; n < ${#same[@]}; n++)); do
    size=${sized[n]}
    [ -n "${sizes[$size]+set}" ] || continue
    i=${same[n]}
    h=${digest[$(sha256sum < "${resolved[i]}" | cut -d' ' -f1)]:-}
    [ -n "$h" ] && printf '%s\t%s\n' "${paths[i]}" "$h"
  done
  return 0
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
  paths=()
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
    case $p in "$repo"/*) paths+=("$p") ;; esac
  done < "$dep"
  [ ${#paths[@]} -gt 0 ] || continue
  test_crate=${tests[$root]:-}
  printf '%s\0' "${paths[@]}" | hidden_of | while IFS=$'\t' read -r p h; do
    [ -n "$test_crate" ] && declared_module "$root" "$p" && continue
    printf '%s\t%s\t%s\n' "${root#"$repo"/}" "${p#"$repo"/}" "$h"
  done
  [ "${PIPESTATUS[1]}" -eq 0 ] || exit 3
done | sort -u
# A read that could not be made (exit 3 above, in the loop's subshell) is the environment's.
[ "${PIPESTATUS[1]}" -eq 0 ] || exit 3
exit 0
