# The agent's persistent shell (run as: bash --noprofile --norc -c "<this>").
# It reads `<start nonce>\0<command>\0<end nonce>\0` records from stdin and evals each command in this
# same shell, so `cd` and `export` persist; the command's stdin is /dev/null and its stderr is merged
# into stdout. Before each command it prints `\x1eSWE_ENV_START:<start nonce>:<uptime>\x1f`: the server
# keeps that start time (the command cannot forge what is printed before it runs) and a timeout kills
# every process started at or after it. After each command it reads the end nonce, which waited in
# the pipe while the command ran (so no variable of this shell holds it then), and prints
# `\x1eSWE_ENV_END:<end nonce>:<exit code>:<cwd>\x1f`.
# Each record also carries a journal key (between the start nonce and the command; empty for none):
# with a key, the shell writes `<key> <its pid> <start uptime>` to /dev/shm/swe-env/start before the
# command and `<key> <exit code> <cwd>` to /dev/shm/swe-env/end after it (builtins on a tmpfs, no
# fork: a command pays under 0.1 ms for it; files on the overlay cost about 0.4 ms). A command
# outlives the server that sent it (the engine drains its output), so a restarted server reads
# these to answer the step instead of losing it.
# The shell's own lines never run traced: -x and -v the command set are put aside after it and back
# before the next one, so a `set -x` shows the agent its commands, not this loop.
exec 2>&1
if [ -f /opt/miniconda3/bin/activate ]; then
  . /opt/miniconda3/bin/activate >/dev/null 2>&1 && conda activate testbed >/dev/null 2>&1
fi
# The last working directory, else the task's (the agent may have deleted the last one), else /.
cd "$SWE_ENV_WORKDIR" 2>/dev/null || cd "$SWE_ENV_HOME" 2>/dev/null || cd /
# An optional start-up program (the reset's repository checks) runs before the shell reports ready,
# saving a docker exec; its output and exit code travel in the ready marker.
__swe_env_init=""
if [ -n "$SWE_ENV_INIT" ]; then
  __swe_env_init=$(bash --noprofile --norc -c "$SWE_ENV_INIT" swe-env-init $SWE_ENV_INIT_ARGS 2>&1; printf '\nexit=%d' "$?")
fi
unset SWE_ENV_INIT SWE_ENV_INIT_ARGS
__swe_env_j=/dev/shm/swe-env
# Writes one journal file (start or end); the directory is made again only when the write fails
# (the first time, or after the agent removed it), so a command costs no fork.
__swe_env_journal() {
  { printf '%s\n' "$2" > "$__swe_env_j/$1"; } 2>/dev/null || { mkdir -p "$__swe_env_j" && printf '%s\n' "$2" > "$__swe_env_j/$1"; } 2>/dev/null
}
# `ready` in the journal: no command has started in this shell yet.
__swe_env_journal start "ready $$ -"
printf '\036SWE_ENV_READY:%d:%s\035%s\037' "$$" "$PWD" "$__swe_env_init"
__swe_env_trace=""
while IFS= read -r -d '' __swe_env_nonce && IFS= read -r -d '' __swe_env_key && IFS= read -r -d '' __swe_env_cmd; do
  read -r __swe_env_t0 __swe_env_idle < /proc/uptime
  if [[ -n $__swe_env_key && $__swe_env_key != *[!A-Za-z0-9_.-]* ]]; then
    __swe_env_journal start "$__swe_env_key $$ $__swe_env_t0"
  else
    __swe_env_key=""
  fi
  printf '\036SWE_ENV_START:%s:%s\037' "$__swe_env_nonce" "$__swe_env_t0"
  __swe_env_nonce=""
  [ -n "$__swe_env_trace" ] && set "-$__swe_env_trace"
  eval "$__swe_env_cmd" < /dev/null
  { __swe_env_rc=$?; __swe_env_trace=""; case $- in *x*) __swe_env_trace+=x;; esac; case $- in *v*) __swe_env_trace+=v;; esac; set +xv; } 2>/dev/null
  [ -n "$__swe_env_key" ] && __swe_env_journal end "$__swe_env_key $__swe_env_rc $PWD"
  IFS= read -r -d '' __swe_env_nonce
  printf '\036SWE_ENV_END:%s:%d:%s\037' "$__swe_env_nonce" "$__swe_env_rc" "$PWD"
  __swe_env_nonce=""
done
