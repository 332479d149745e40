#!/usr/bin/env bash
# Makes sure a Docker engine answers: installs Debian's docker.io and starts dockerd when none does.
# Sandboxes use network none, so the daemon runs without a bridge or iptables rules.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

engine_answers() { timeout 10 docker info >/dev/null 2>&1; }

if command -v docker >/dev/null 2>&1 && engine_answers; then
  exit 0
fi
if ! command -v dockerd >/dev/null 2>&1; then
  apt_install docker.io
fi
# A pid file left by an engine killed without its clean-up (a machine restarted or copied) that
# names another live process: dockerd (or the containerd it starts) would refuse to start, or wait
# on a stranger. Removed unless its process is what the file says.
forget_stale_pid_file() {
  local file=$1 program=$2 pid
  [ -f "$file" ] || return 0
  pid=$(cat "$file" 2>/dev/null || true)
  [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$program" ] && return 0
  rm -f "$file"
}
if ! engine_answers; then
  forget_stale_pid_file /var/run/docker.pid dockerd
  forget_stale_pid_file /var/run/docker/containerd/containerd.pid containerd
  log "starting dockerd (log: /var/log/swe-env-dockerd.log)"
  nohup dockerd --bridge=none --iptables=false >>/var/log/swe-env-dockerd.log 2>&1 &
  for _ in $(seq 1 60); do
    engine_answers && break
    sleep 1
  done
fi
if ! engine_answers; then
  log "the Docker engine did not come up; last lines of its log:"
  tail -n 20 /var/log/swe-env-dockerd.log >&2 || true
  exit 1
fi
log "Docker engine ready"
