#!/usr/bin/env bash
# Starts (or finds) an extra Docker engine on this machine, with its own data root, state and
# socket, and gives it the images of the default engine it is asked for: a stand-in for another
# machine's engine, for the multi-node tests (each Ray node's server drives its own engine).
# Usage: extra-engine.sh NAME [IMAGE...]   prints the engine's socket path on stdout.
# SWE_ENV_ENGINE_RUNTIMES="crun=/usr/bin/crun" registers more OCI runtimes with it.
# The engine is left running for the next use (its images stay loaded); stop it with
# kill "$(cat /run/swe-env-engine-NAME.pid)". The tests remove every container they start on it.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

name=$1
shift
socket=/run/swe-env-engine-$name.sock
answers() { timeout 10 docker -H "unix://$socket" info >/dev/null 2>&1; }

# An engine left running by an earlier run that started it with that run's temporary folder
# (runc writes each exec's process file there): once that folder is gone every exec fails
# ("OCI runtime exec failed: open .../runc-process...: no such file"). Stopped, it starts again below.
pidfile=/run/swe-env-engine-$name.pid
if answers && [ -f "$pidfile" ]; then
  old_tmp=$(tr '\0' '\n' <"/proc/$(cat "$pidfile")/environ" 2>/dev/null | sed -n 's/^TMPDIR=//p')
  if [ -n "$old_tmp" ] && [ ! -d "$old_tmp" ]; then
    log "engine $name: its temporary folder $old_tmp is gone; restarting it"
    old_pid=$(cat "$pidfile")
    kill "$old_pid" 2>/dev/null || true
    # Gone, not only silent: a second dockerd refuses to start beside its pid file and containerd.
    for _ in $(seq 1 60); do kill -0 "$old_pid" 2>/dev/null || break; sleep 1; done
  fi
fi

if ! answers; then
  log "starting engine $name (log: /var/log/swe-env-engine-$name.log)"
  mkdir -p "/var/lib/swe-env-engine-$name" "/run/swe-env-engine-$name"
  runtimes=()
  for runtime in ${SWE_ENV_ENGINE_RUNTIMES:-}; do runtimes+=(--add-runtime "$runtime"); done
  # A temporary folder of its own, which outlives whoever asked for the engine (the caller's
  # TMPDIR may be a test run's scratch folder, removed when that run ends).
  mkdir -p "/var/lib/swe-env-engine-$name/tmp"
  TMPDIR="/var/lib/swe-env-engine-$name/tmp" nohup dockerd "${runtimes[@]}" --bridge=none --iptables=false --ip-forward=false --ip-masq=false \
    --data-root "/var/lib/swe-env-engine-$name" --exec-root "/run/swe-env-engine-$name" \
    --pidfile "$pidfile" --host "unix://$socket" \
    >>"/var/log/swe-env-engine-$name.log" 2>&1 &
  for _ in $(seq 1 60); do
    answers && break
    sleep 1
  done
  answers || { tail -n 20 "/var/log/swe-env-engine-$name.log" >&2; exit 1; }
fi
# Images it lacks or holds in another build than the default engine's (an engine that outlived a
# rebuild of the demo images), copied from the default engine (no registry: save | load).
missing=()
for image in "$@"; do
  ours=$(docker -H "unix://$socket" image inspect -f '{{.Id}}' "$image" 2>/dev/null || true)
  [ -n "$ours" ] && [ "$ours" = "$(docker image inspect -f '{{.Id}}' "$image" 2>/dev/null)" ] || missing+=("$image")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "engine $name: loading ${#missing[@]} images"
  docker save "${missing[@]}" | docker -H "unix://$socket" load >/dev/null
fi
printf '%s\n' "$socket"
