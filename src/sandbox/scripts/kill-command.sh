# Kills every process the agent's current command started: all processes but PID 1, the shell ($1)
# and this script, whose start time is at or after the command's start. That catches forked
# subshells, daemons and orphans reparented to PID 1, which neither the process tree nor the
# environment would (killing the `docker exec` client kills nothing: moby#9098). Builtins only, so
# it runs when a fork bomb filled the pid table; victims are stopped before they are killed so the
# bomb cannot outrun it. Exit 0 when none is left. Start times are in USER_HZ, 100 on Linux.
# Arguments: the shell's pid, the command's start (the uptime its shell announced before running it,
# kept by the server: nothing the command can write).
keep="$1"
t0="${2:-}"
if [[ "$t0" =~ ^[0-9]+\.[0-9]+$ ]]; then
  t0=$(( 10#${t0%.*} * 100 + 10#${t0#*.} ))
else
  # No record of the command's start: spare only what started before the shell.
  { read -r stat < "/proc/$keep/stat"; } 2>/dev/null || exit 2
  rest=${stat##*) }; set -f; set -- $rest; set +f; t0=$(( ${20} + 1 ))
fi
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
