#!/usr/bin/env bash
# Puts `swe-env` on PATH: a link to this checkout's built CLI in /usr/local/bin (when writable,
# as root) or ~/.local/bin. The set-up run last decides which checkout `swe-env` is.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
cli="$(cd "$here/.." && pwd)/dist/src/cli/main.js"
chmod +x "$cli"
if [ -w /usr/local/bin ]; then bin=/usr/local/bin; else bin="$HOME/.local/bin"; mkdir -p "$bin"; fi
if [ "$(readlink "$bin/swe-env" 2>/dev/null || true)" != "$cli" ]; then
  ln -sfn "$cli" "$bin/swe-env"
  log "swe-env is $bin/swe-env -> $cli"
fi
case ":$PATH:" in
  *":$bin:"*) ;;
  *) log "$bin is not on your PATH: add it to run swe-env by name (or use node $cli)" ;;
esac
