#!/usr/bin/env bash
# Starts (or finds) Podman's Docker-compatible API service on a socket of its own, rootful or
# rootless (as the dedicated user swe-env-podman), and gives it the images of the default Docker
# engine it is asked for. Installs Debian's podman (and what rootless needs) when missing.
# Usage: podman-engine.sh rootful|rootless [IMAGE...]   prints the service's socket path on stdout.
# The service is left running for the next use (its images stay loaded); stop it with
# kill "$(cat /run/swe-env-podman-MODE.pid)". The tests remove every container they start on it.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

mode=${1:?usage: podman-engine.sh rootful|rootless [IMAGE...]}
shift
user=swe-env-podman
dir=/run/swe-env-podman-$mode
socket=$dir/podman.sock
pidfile=/run/swe-env-podman-$mode.pid
log_file=/var/log/swe-env-podman-$mode.log

command -v podman >/dev/null 2>&1 || apt_install podman
command -v newuidmap >/dev/null 2>&1 || apt_install uidmap
command -v slirp4netns >/dev/null 2>&1 || apt_install slirp4netns
command -v fuse-overlayfs >/dev/null 2>&1 || apt_install fuse-overlayfs

# Runs podman as the service's user (root, or the rootless user in its own runtime directory).
as_engine() {
  if [ "$mode" = rootless ]; then
    setpriv --reuid="$(id -u "$user")" --regid="$(id -g "$user")" --init-groups --reset-env \
      env HOME="/var/lib/$user" XDG_RUNTIME_DIR="$dir/xdg" CONTAINERS_CONF="$dir/containers.conf" PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"
  else
    CONTAINERS_CONF="$dir/containers.conf" "$@"
  fi
}

answers() { [ -S "$socket" ] && curl -sf --max-time 10 --unix-socket "$socket" http://d/_ping >/dev/null 2>&1; }

prepare_rootless_user() {
  if ! id "$user" >/dev/null 2>&1; then
    useradd --system --create-home --home-dir "/var/lib/$user" --shell /usr/sbin/nologin "$user"
  fi
  # Sub-ids for the user namespace of its containers (65536 ids, after any other range).
  for file in /etc/subuid /etc/subgid; do
    grep -q "^$user:" "$file" 2>/dev/null || echo "$user:1000000:65536" >>"$file"
  done
  mkdir -p "$dir/xdg"
  chown -R "$user:$user" "$dir"
  chmod 0711 "$dir"
  chmod 0700 "$dir/xdg"
}

# Podman gives each container nofile and nproc limits of 1048576 unless told, which a root
# without CAP_SYS_RESOURCE (a nested machine such as this one) cannot raise to; runc then fails
# every start with "error setting rlimits". The service's own limits, which Docker's containers
# inherit, are given instead. Events go to a file: there is no journald without systemd.
write_config() {
  local nofile nproc
  nofile=$(ulimit -Hn)
  nproc=$(ulimit -Hu)
  # Podman lowers its own process limit to 32768 where it cannot raise it; ask no more than that.
  [ "$nproc" = unlimited ] || [ "$nproc" -gt 32768 ] && nproc=32768
  cat >"$dir/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]
[engine]
events_logger = "file"
cgroup_manager = "cgroupfs"
EOF
  chmod 0644 "$dir/containers.conf"
}

if ! answers; then
  log "starting podman $mode (log: $log_file)"
  mkdir -p "$dir"
  [ "$mode" = rootless ] && prepare_rootless_user
  write_config
  rm -f "$socket"
  # The service runs in its own folder: its containers' monitor writes an `oom` file into its
  # working directory when one runs out of memory, which was the caller's checkout.
  cd "$dir"
  # The service outlives this script: it must hold none of the caller's descriptors (a lock taken
  # around the caller's command would be held until the service stops). 255 is bash's own: this script.
  for fd in /proc/$$/fd/*; do
    fd=${fd##*/}
    if [ "$fd" -gt 2 ] && [ "$fd" -lt 255 ]; then eval "exec $fd>&-"; fi
  done
  as_engine nohup podman system service --time=0 "unix://$socket" >>"$log_file" 2>&1 &
  echo $! >"$pidfile"
  for _ in $(seq 1 60); do
    answers && break
    sleep 1
  done
  answers || { tail -n 20 "$log_file" >&2; exit 1; }
  # $! is the wrapper's (nohup, runuser for rootless): the file holds the service's own pid.
  service_pid=$(pgrep -o -f -- "system service --time=0 unix://$socket" || true)
  [ -n "$service_pid" ] && echo "$service_pid" >"$pidfile"
  # The root server connects to a rootless user's socket.
  [ "$mode" = rootless ] && chmod 0666 "$socket"
fi
# Images it lacks or holds in another version (the same image has the same id on both engines),
# copied from the default Docker engine (no registry: save | load). Podman keeps a name without a
# registry as localhost/NAME and finds it again by the short name.
missing=()
for image in "$@"; do
  want=$(docker image inspect --format '{{.Id}}' "$image")
  have=$(as_engine podman image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)
  [ "sha256:${have#sha256:}" = "$want" ] || missing+=("$image")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "podman $mode: loading ${#missing[@]} images"
  docker save "${missing[@]}" | as_engine podman load -q >/dev/null
fi
printf '%s\n' "$socket"
