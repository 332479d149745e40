# Kills every process the agent's current command started: all processes but PID 1, the shell ($1)
# and this script, whose start time is at or after the command's start. That catches forked
# subshells, daemons and orphans reparented to PID 1, which neither the process tree nor the
# environment would (killing the `docker exec` client kills nothing: moby#9098). Builtins only;
# victims are stopped before they are killed so a fork bomb cannot outrun it. Exit 0 when none is
# left. Start times are in USER_HZ, 100 on Linux.
# It runs in a helper container beside the sandbox (helper-container.ts): the sandbox's pristine
# image, its process table, none of the agent's files. The command's start is the server's to say,
# not the shell's (a shell the agent replaced could announce any time): this prints the uptime as
# it reads it, and the server answers with the uptime at which it sent the command, on stdin.
keep="$1"
{ read -r up _ < /proc/uptime; } 2>/dev/null || exit 2
printf 'uptime %s\n' "$up"
IFS= read -r t0 || exit 2
# The answer is the line's trailing number: Podman's engine hands its attach request's body (the
# client's options, a JSON object without a newline) to the helper's stdin ahead of the answer.
t0=${t0##*[!0-9.]}
[[ "$t0" =~ ^[0-9]+\.[0-9][0-9]$ ]] || exit 2
t0=$(( 10#${t0%.*} * 100 + 10#${t0#*.} ))
for (( round = 0; round < 300; round++ )); do
  victims=()
  for d in /proc/[0-9]*; do
    p=${d#/proc/}
    [[ $p == 1 || $p == $$ || $p == "$keep" ]] && continue
    { read -r stat < "$d/stat"; } 2>/dev/null || continue
    rest=${stat##*) }
    set -f; set -- $rest; set +f
    [[ $1 == Z || $1 == X ]] && continue
    (( ${20} >= t0 )) && victims+=("$p")
  done
  (( ${#victims[@]} == 0 )) && exit 0
  kill -STOP "${victims[@]}" 2>/dev/null
  kill -KILL "${victims[@]}" 2>/dev/null
done
exit 1
