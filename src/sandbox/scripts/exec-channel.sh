# One process that runs a container's commands one after another, each as a child of its own, so
# that a command costs a fork here instead of an exec through the engine (about 60 ms each, a dozen
# per grading). $1: a folder of its own for each command's input and output, removed at the end.
# The tools it needs are looked up once, at its start; it says which in its first line.
# A request: a line "swe-env-req KIND ARGV ENV STDIN WORKDIR MERGE" (byte counts, MERGE 1 to merge
# stderr into stdout), then those bytes (argv and env NUL-separated). KIND x runs argv; KIND p
# extracts the stdin bytes (a tar) at / instead; KIND q ends it (its folder removed, then a last
# line "swe-env-channel done"; an engine may not pass on the end of stdin). The reply: a line
# "swe-env-rep CODE OUT ERR", then the output's and the error's bytes. Its own errors go nowhere:
# stdout carries only replies.
exec 2>/dev/null
dir=$1
head=$(command -v head) && wc=$(command -v wc) && cat=$(command -v cat) && rm=$(command -v rm) && env=$(command -v env) || exit 1
tar=$(command -v tar) || tar=
# Requests are read with `head -c`, which must stop at its count on a pipe: busybox's reads ahead,
# and would eat the next part of a request (the channel then hangs on its first one).
[[ $(printf 'ab' | { "$head" -c 1 > /dev/null; "$cat"; }) == b ]] || exit 1
# Made only once it can run: an image it cannot run in keeps no folder of it.
mkdir -p -- "$dir" || exit 1
printf 'swe-env-channel ready %s\n' "${tar:+tar}"

# Each step below forks as little as it can (a builtin read instead of `cat`, files reused rather
# than removed): a program started costs about 1.5 ms here, and a request used to start a dozen.
run() {
  local wd='' args=() envs=() a cmd='' absolute=''
  IFS= read -r -d '' wd < "$dir/wd"
  while IFS= read -r -d '' a; do args+=("$a"); done < "$dir/argv"
  # The command is looked up from here (/), on the PATH's absolute entries: an empty or relative
  # one would find a program of the repository in the working directory (the patch's own `bash`).
  set -f
  local IFS=:
  for a in $PATH; do [[ $a == /* ]] && absolute+="$a:"; done
  IFS=$' \t\n'
  set +f
  PATH=$absolute type -P -- "${args[0]}" > "$dir/cmd" && IFS= read -r cmd < "$dir/cmd" && [[ -n $cmd ]] || {
    printf 'exec failed: unable to start container process: exec: "%s": executable file not found in $PATH\n' "${args[0]}"
    exit 127
  }
  args[0]=$cmd
  # As the engine's exec: a working directory that is not there is exit 126 with the reason.
  cd -- "$wd" || { printf 'exec failed: chdir to cwd (%s): no such file or directory\n' "$wd"; exit 126; }
  # What this process itself adds to its environment is not the command's.
  unset -v OLDPWD PWD SHLVL
  while IFS= read -r -d '' a; do envs+=("$a"); done < "$dir/env"
  exec "$env" "${envs[@]}" "${args[@]}" < "$dir/in"
}

# A request's part of $1 bytes into $dir/$2 (an empty one without starting `head`).
part() {
  if (($1 == 0)); then : > "$dir/$2"; else "$head" -c "$1" > "$dir/$2"; fi
}

while IFS= read -r line; do
  # Podman's engine may hand the attach request's own body to stdin ahead of the first request.
  line=${line##*swe-env-req }
  set -f
  # shellcheck disable=SC2086
  set -- $line
  set +f
  kind=$1 na=$2 ne=$3 ns=$4 nw=$5 merge=$6
  [[ $kind == q ]] && break
  part "$na" argv && part "$ne" env && part "$ns" in && part "$nw" wd || break
  : > "$dir/err"
  if [[ $kind == p ]]; then
    ("$tar" -x -f - -C / < "$dir/in") > "$dir/out" 2>&1
  elif [[ $merge == 1 ]]; then
    (run) > "$dir/out" 2>&1
  else
    (run) > "$dir/out" 2> "$dir/err"
  fi
  code=$?
  "$wc" -c -- "$dir/out" "$dir/err" > "$dir/sizes"
  { read -r out_bytes _ && read -r err_bytes _; } < "$dir/sizes"
  printf 'swe-env-rep %d %d %d\n' "$code" "$out_bytes" "$err_bytes"
  "$cat" -- "$dir/out" "$dir/err"
done
"$rm" -rf -- "$dir"
printf 'swe-env-channel done\n'
