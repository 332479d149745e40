#!/usr/bin/env bash
# Every test: type checks, lint, the TypeScript suites against real Docker and real gRPC, and the
# Python client's tests. Run after scripts/setup.sh (npm test does both).
set -euo pipefail
cd "$(dirname "$0")/.."
# Servers the tests start keep their episode records and trajectories here, not in the user's home.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export SWE_ENV_STATE_DIR="$scratch/state" SWE_ENV_TRAJECTORY_DIR="$scratch/trajectories"
echo "== typecheck"
npx tsc -p tsconfig.test.json
echo "== lint"
npx eslint .
echo "== format (prettier; npm run format fixes it)"
npx prettier --check --log-level warn 'src/**/*.ts' 'test/**/*.ts' 'bench/**/*.ts'
echo "== lint: the grader's own Python (ruff: undefined and unused names, syntax)"
. scripts/lib.sh
"$(python_env_dir)/bin/ruff" check --select F,E9 --output-format concise src
echo "== vitest"
npx vitest run
# The Podman leg and the Python client's tests share nothing (another engine, servers of their own,
# records kept by server id): they run side by side, the Podman leg in a process group of its own
# (ended with the script whatever ends it) and its log printed after the Python leg's. (Beside the
# main suite it only slows it: the machine's two cores are busy through vitest.)
podman_leg() {
  echo "== vitest against Podman (rootful: sandbox, grading, restart; rootful and rootless: the engine's specifics)"
  # Podman's Docker-compatible API service on its own sockets (scripts/podman-engine.sh), the base
  # and demo images copied from Docker; every test below reaches it through DOCKER_HOST.
  # The Python demo's task images (what the tests below serve), not the other languages' (4.6 GB of toolchains).
  demo_images=$(node -e 'for (const l of require("fs").readFileSync("tasks/demo/tasks.jsonl", "utf8").split("\n")) if (l.trim()) console.log(`sweb.eval.x86_64.${JSON.parse(l).instance_id}:latest`)')
  podman_rootful=$(bash scripts/podman-engine.sh rootful swe-env/base:latest $demo_images)
  podman_rootless=$(bash scripts/podman-engine.sh rootless swe-env/base:latest)
  SWE_ENV_PODMAN_ROOTFUL_SOCKET=$podman_rootful SWE_ENV_PODMAN_ROOTLESS_SOCKET=$podman_rootless \
    npx vitest run -c vitest.engines.config.ts
  DOCKER_HOST=unix://$podman_rootful npx vitest run test/sandbox/shell-session.test.ts test/sandbox/timeout-killer.test.ts test/sandbox/timeout-killer-stopped.test.ts \
    test/sandbox/host-bounds.test.ts test/sandbox/loopback.test.ts test/sandbox/command-journal.test.ts test/sandbox/image-builder.test.ts \
    test/sandbox/io-limits.test.ts test/sandbox/process-list.test.ts \
    test/sandbox/offline-route.test.ts test/sandbox/exec-channel.test.ts \
    test/server/sandbox-fate.test.ts test/server/disk-quota.test.ts test/server/restart-survival.test.ts \
    test/server/crash-recovery.test.ts
  DOCKER_HOST=unix://$podman_rootful npx vitest run test/server/evaluate.test.ts \
    -t 'gold patch scores 1|does not apply|a grading container that dies'
  # The pytest outcome rewrites and the grading's inputs attacked (those the catalogue numbers by family,
  # with the controls: the exploits Podman ran before the regrouping), and
  # the install masks but the one that never ends (70 s of waiting out a timeout whose killing on
  # Podman is timeout-killer.test.ts's above).
  DOCKER_HOST=unix://$podman_rootful npx vitest run test/cheats/outcome-rewrite test/cheats/grading-inputs -t 'controls|\[[0-9] '
  DOCKER_HOST=unix://$podman_rootful npx vitest run test/cheats/masks/pytest-masks.test.ts -t 'controls|/usr/bin/timeout and git with no-ops|fsmonitor hook'
}

python_leg() {
  if [ -d clients/python/tests ]; then
    echo "== python client"
    # What the frameworks leave in the temporary folder (wandb's staging folders, Ray's sessions,
    # torch's compile caches) goes into the scratch folder removed on exit, not into /tmp.
    export TMPDIR="$scratch/tmp"
    mkdir -p "$TMPDIR"
    . scripts/lib.sh
    python_env=$(python_env_dir)
    echo "== python client: ruff and mypy"
    ( cd clients/python && "$python_env/bin/ruff" check && "$python_env/bin/python" -m mypy )
    # --durations: the slowest tests named in the log, where a slower CI shows first.
    # This checkout's client, first on the path of the tests and of every process they start (the
    # shared venv holds no swe_env of its own: see scripts/setup-python.sh).
    ( cd clients/python && PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" "$python_env/bin/python" -m pytest -q -p no:cacheprovider --durations=15 tests )
    # OpenEnv in its own venv (scripts/setup-python.sh: its dependency set clashes with the shared venv's).
    echo "== python client: OpenEnv"
    ( cd clients/python && PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" "$python_env/openenv/bin/python" -m pytest -q -p no:cacheprovider --durations=15 tests_openenv )
  fi
}

set -m
podman_leg > "$scratch/podman.log" 2>&1 &
podman_pid=$!
set +m
trap 'kill -- -"$podman_pid" 2>/dev/null || true; rm -rf "$scratch"' EXIT
# Each leg stops at its first failure (errexit holds inside a subshell run as a plain command,
# not inside a function called as `f || ...`).
set +e
( set -e; python_leg )
python_status=$?
wait "$podman_pid"
podman_status=$?
set -e
cat "$scratch/podman.log"
echo "== legs: python client exit $python_status, Podman exit $podman_status"
[ "$python_status" -eq 0 ] && [ "$podman_status" -eq 0 ]
