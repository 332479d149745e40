# The agent's persistent shell (run as: bash --noprofile --norc -c "<this>").
# It reads `<nonce>\0<command>\0` records from stdin and evals each command in this same shell, so
# `cd` and `export` persist; the command's stdin is /dev/null and its stderr is merged into stdout.
# Before each command it records the time in /run/swe-env/cmd-start (builtins only, no fork): that
# is how a timeout finds every process the command started. After each command it prints
# `\x1eSWE_ENV_END:<nonce>:<exit code>:<cwd>\x1f`.
exec 2>&1
if [ -f /opt/miniconda3/bin/activate ]; then
  . /opt/miniconda3/bin/activate >/dev/null 2>&1 && conda activate testbed >/dev/null 2>&1
fi
mkdir -p /run/swe-env 2>/dev/null
# The last working directory, else the task's (the agent may have deleted the last one), else /.
cd "$SWE_ENV_WORKDIR" 2>/dev/null || cd "$SWE_ENV_HOME" 2>/dev/null || cd /
# An optional start-up program (the reset's repository checks) runs before the shell reports ready,
# saving a docker exec; its output and exit code travel in the ready marker.
__swe_env_init=""
if [ -n "$SWE_ENV_INIT" ]; then
  __swe_env_init=$(bash --noprofile --norc -c "$SWE_ENV_INIT" swe-env-init $SWE_ENV_INIT_ARGS 2>&1; printf '\nexit=%d' "$?")
fi
unset SWE_ENV_INIT SWE_ENV_INIT_ARGS
printf '\036SWE_ENV_READY:%d:%s\035%s\037' "$$" "$PWD" "$__swe_env_init"
while IFS= read -r -d '' __swe_env_nonce && IFS= read -r -d '' __swe_env_cmd; do
  read -r __swe_env_t0 __swe_env_idle < /proc/uptime
  printf '%s' "$__swe_env_t0" > /run/swe-env/cmd-start 2>/dev/null
  eval "$__swe_env_cmd" < /dev/null
  __swe_env_rc=$?
  printf '\036SWE_ENV_END:%s:%d:%s\037' "$__swe_env_nonce" "$__swe_env_rc" "$PWD"
done
