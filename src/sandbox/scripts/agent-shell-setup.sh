# Set-up of the agent's shell, run (eval) by agent-shell.sh's line 1 before its command loop.
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
# Before a command: its start in the journal (a valid key only) and the start marker.
__swe_env_started() {
  read -r __swe_env_t0 __swe_env_idle < /proc/uptime
  if [[ -n $__swe_env_key && $__swe_env_key != *[!A-Za-z0-9_.-]* ]]; then
    __swe_env_journal start "$__swe_env_key $$ $__swe_env_t0"
  else
    __swe_env_key=""
  fi
  printf '\036SWE_ENV_START:%s:%s\037' "$__swe_env_nonce" "$__swe_env_t0"
  __swe_env_nonce=""
}
# After it: its end in the journal, then the end nonce read from the pipe and the end marker.
__swe_env_ended() {
  [ -n "$__swe_env_key" ] && __swe_env_journal end "$__swe_env_key $__swe_env_rc $PWD"
  IFS= read -r -d '' __swe_env_nonce
  printf '\036SWE_ENV_END:%s:%d:%s\037' "$__swe_env_nonce" "$__swe_env_rc" "$PWD"
  __swe_env_nonce=""
}
# `ready` in the journal: no command has started in this shell yet.
__swe_env_journal start "ready $$ -"
printf '\036SWE_ENV_READY:%d:%s\035%s\037' "$$" "$PWD" "$__swe_env_init"
__swe_env_trace=""
