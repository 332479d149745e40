eval "$SWE_ENV_SHELL_SETUP"; unset SWE_ENV_SHELL_SETUP; while IFS= read -r -d '' __swe_env_nonce && IFS= read -r -d '' __swe_env_key && IFS= read -r -d '' __swe_env_cmd; do __swe_env_started; [ -n "$__swe_env_trace" ] && set "-$__swe_env_trace"; eval "$__swe_env_cmd" < /dev/null; { __swe_env_rc=$?; __swe_env_trace=""; case $- in *x*) __swe_env_trace+=x;; esac; case $- in *v*) __swe_env_trace+=v;; esac; set +xv; } 2>/dev/null; __swe_env_ended; done
# The agent's persistent shell (run as: bash --noprofile --norc -c "<this>").
# The first line above is the whole command loop, on line 1 of the script so that an error in a
# command reads as it would from `bash -c` (`bash: line 1: foo: command not found`, the command's
# own line numbers), not with the loop's place in a longer script. What runs before the loop (and
# the two functions it calls around each command, which print the SWE_ENV_START: and SWE_ENV_END:
# markers) is agent-shell-setup.sh, handed over in SWE_ENV_SHELL_SETUP and unset before any command.
# Nothing after line 1 ever runs: these comments are documentation (and carry the start marker's
# name, by which command-journal.sh tells an agent shell).
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
# just before the next one, so a `set -x` shows the agent its commands, not this loop.
