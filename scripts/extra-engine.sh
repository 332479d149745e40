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

pidfile=/run/swe-env-engine-$name.pid
# Everything of this engine's: its dockerd, containerd and shims all name its socket or exec root.
engine_pids() { pgrep -f -- "swe-env-engine-${name}[/.]" || true; }

# Stops whatever is left of the engine and the pid files it leaves behind when it is killed
# without its own clean-up (a machine restarted or copied, a session ended): dockerd and its
# containerd each refuse to start, or wait on a stranger, while their pid file names a live
# process, and after a restart that pid may be anyone's.
stop_engine() {
  local pids
  pids=$(engine_pids)
  if [ -n "$pids" ]; then
    # shellcheck disable=SC2086
    kill $pids 2>/dev/null || true
    for _ in $(seq 1 30); do [ -z "$(engine_pids)" ] && break; sleep 1; done
    pids=$(engine_pids)
    # shellcheck disable=SC2086
    [ -z "$pids" ] || kill -9 $pids 2>/dev/null || true
    for _ in $(seq 1 10); do [ -z "$(engine_pids)" ] && break; sleep 1; done
  fi
  rm -f "$pidfile" "/run/swe-env-engine-$name/containerd/containerd.pid"
}

# The engine's temporary folder, where runc writes each exec's process file. Its own, outside
# its data root (dockerd empties <data-root>/tmp when it starts) and outliving whoever asked
# for the engine (a caller's TMPDIR may be a test run's scratch folder, removed when it ends).
engine_tmp=/var/tmp/swe-env-engine-$name
if answers; then
  old_tmp=$(tr '\0' '\n' <"/proc/$(cat "$pidfile" 2>/dev/null)/environ" 2>/dev/null | sed -n 's/^TMPDIR=//p')
  if [ "$old_tmp" != "$engine_tmp" ] || [ ! -d "$old_tmp" ]; then
    # Started by an older version of this script, or its folder removed: every exec would fail
    # ("OCI runtime exec failed: open .../runc-process...: no such file").
    log "engine $name: its temporary folder ${old_tmp:-(unknown)} is not $engine_tmp; restarting it"
    stop_engine
  fi
fi

if ! answers; then
  stop_engine
  log "starting engine $name (log: /var/log/swe-env-engine-$name.log)"
  mkdir -p "/var/lib/swe-env-engine-$name" "/run/swe-env-engine-$name"
  runtimes=()
  for runtime in ${SWE_ENV_ENGINE_RUNTIMES:-}; do runtimes+=(--add-runtime "$runtime"); done
  mkdir -p "$engine_tmp"
  TMPDIR="$engine_tmp" nohup dockerd "${runtimes[@]}" --bridge=none --iptables=false --ip-forward=false --ip-masq=false \
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
