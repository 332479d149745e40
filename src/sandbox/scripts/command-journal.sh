# Reads the agent shell's command journal (see agent-shell.sh) for a server restarted while a
# command ran (run as: bash --noprofile --norc -c "<this>"). Prints three lines:
#   start <key> <shell pid> <start uptime>   (or `start` alone when there is no journal)
#   end <key> <exit code> <cwd>
#   shells <pids of the agent shells still running>
# An agent shell is told by its script, which names the start marker (this script spells the name
# in two pieces so that it does not count itself), and by its parent: the engine started it (ppid 0
# in the container); a subshell forked from it for a background job has the same command line.
# The shells are looked for first, the files read after: a shell that ends between the two has
# written its end already (read the other way round, a command ending in between would look as if
# its shell had died without an end).
j=/dev/shm/swe-env
needle="SWE_ENV_""START:"
shells=()
for d in /proc/[0-9]*; do
  p=${d#/proc/}
  [[ $p == "$$" ]] && continue
  args=()
  { mapfile -d '' args < "$d/cmdline"; } 2>/dev/null || continue
  [[ ${args[0]:-} == bash && "${args[*]}" == *"$needle"* ]] || continue
  { read -r stat < "$d/stat"; } 2>/dev/null || continue
  rest=${stat##*) }
  set -f; set -- $rest; set +f
  [[ $2 == 0 ]] && shells+=("$p")
done
start=""
end=""
{ IFS= read -r start < "$j/start"; } 2>/dev/null
{ IFS= read -r end < "$j/end"; } 2>/dev/null
printf 'start %s\nend %s\nshells %s\n' "$start" "$end" "${shells[*]}"
