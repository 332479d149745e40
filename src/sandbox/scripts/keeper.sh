# PID 1 of every sandbox (run as: bash -c "<this>" swe-env-keeper <max life in seconds>).
# It ignores every signal it can, and in a PID namespace its init cannot even be SIGKILLed from
# inside: a command such as `kill -9 -1` or `pkill sleep` cannot end the sandbox. Its loop starts
# no process (it waits with `read -t` on a FIFO nothing writes to): a loop forking a `sleep` could be
# made to exit by a fork loop holding every pid (bash gives up after its fork retries), so a
# dead sandbox is always the environment's failure (INFRA_ERROR), never a way out of a bad episode.
# Orphans are reaped between turns (a quarter of a second: bash collects exited children when its
# `read` times out; a wakeup, not a process). It exits, ending the
# container, after its maximum life.
trap '' TERM INT HUP QUIT USR1 PIPE ALRM ILL TRAP ABRT BUS FPE SEGV XCPU XFSZ VTALRM SYS PROF STKFLT PWR TSTP TTIN TTOU
# SIGUSR2 (sent by the engine when grading is done with the agent-driven steps) ends every other
# process with bash's builtin kill: nothing on the container's disk runs. From inside it only ends
# the sender's own processes.
trap 'kill -9 -1 2>/dev/null' USR2
end=$(( SECONDS + $1 ))
fifo=/run/swe-env-keeper.$$
if { mkdir -p /run && mkfifo -m 600 "$fifo" && exec 3<>"$fifo"; } 2>/dev/null; then
  rm -f "$fifo"
  while (( SECONDS < end )); do
    read -r -t 0.25 -u 3 _ 2>/dev/null
  done
else
  # No FIFO (a read-only /run): the old loop, one short-lived child a turn.
  while (( SECONDS < end )); do
    sleep 5 &
    wait $! 2>/dev/null
  done
fi
