#!/usr/bin/env bash
# Registers gVisor's runsc (Debian's package, installed when missing) as the OCI runtime "runsc" of
# the default Docker engine: merged into /etc/docker/daemon.json's "runtimes", which the engine
# reloads on SIGHUP (a restart would end every running container). Idempotent.
# ptrace is the platform: the package's runsc (2022-12) has no systrap, and KVM inside this
# machine's VM starts nothing. Usage: register-runsc.sh
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

command -v runsc >/dev/null 2>&1 || apt_install runsc
config=/etc/docker/daemon.json
mkdir -p /etc/docker
wanted='{"path": "/usr/bin/runsc", "runtimeArgs": ["--platform=ptrace", "--network=none"]}'
changed=$(CONFIG="$config" WANTED="$wanted" node -e '
  const fs = require("node:fs");
  const path = process.env.CONFIG;
  const config = fs.existsSync(path) ? JSON.parse(fs.readFileSync(path, "utf8") || "{}") : {};
  const wanted = JSON.parse(process.env.WANTED);
  if (JSON.stringify(config.runtimes?.runsc) === JSON.stringify(wanted)) { console.log("no"); process.exit(0); }
  config.runtimes = { ...config.runtimes, runsc: wanted };
  fs.writeFileSync(path, JSON.stringify(config, null, 2) + "\n");
  console.log("yes");
')
registered() { docker info --format '{{json .Runtimes}}' 2>/dev/null | grep -q '"runsc"'; }
if [ "$changed" = yes ] || ! registered; then
  log "registering runsc with the Docker engine (SIGHUP)"
  pid=$(cat /var/run/docker.pid)
  kill -HUP "$pid"
  for _ in $(seq 1 30); do registered && break; sleep 1; done
  registered || { log "the Docker engine did not take the runsc runtime"; exit 1; }
fi
