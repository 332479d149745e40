# PID 1 of every sandbox (run as: bash -c "<this>" swe-env-keeper <max life in seconds>).
# It ignores every signal it can, and in a PID namespace its init cannot even be SIGKILLed from
# inside: a command such as `kill -9 -1` or `pkill sleep` cannot end the sandbox, so a dead sandbox
# is always the environment's failure (INFRA_ERROR), never a way out of a bad episode. It reaps
# orphans (bash waits for any child) and exits, ending the container, after its maximum life.
trap '' TERM INT HUP QUIT USR1 USR2 PIPE ALRM
end=$(( SECONDS + $1 ))
while (( SECONDS < end )); do
  sleep 5 &
  wait $! 2>/dev/null
done
