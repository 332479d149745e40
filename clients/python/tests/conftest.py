"""Starts a real swe-env server (the Node CLI, built by `npm test`'s set-up) on a free loopback port."""
from __future__ import annotations

import json
import os
import atexit
import re
import shutil
import subprocess
import time
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Dict, Iterator

import pytest

# This checkout's client, never another's: the shared test venv holds no swe_env of its own
# (scripts/setup-python.sh), so this process and every process the tests start (scripts, Ray
# workers, subprocesses) import swe_env from here (tests/test_checkout.py checks both).
CLIENT = str(Path(__file__).resolve().parents[1])
sys.path.insert(0, CLIENT)
os.environ["PYTHONPATH"] = os.pathsep.join([CLIENT, *(p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != CLIENT)])

ROOT = Path(__file__).resolve().parents[3]
CLI = ROOT / "dist" / "src" / "cli" / "main.js"
DEMO_TASKS = ROOT / "tasks" / "demo" / "tasks.jsonl"


# Every server's state directory of this test session lives here, removed when the session ends
# (a restart reuses a stopped server's directory, so none can be removed when its server stops).
SCRATCH = tempfile.mkdtemp(prefix="swe-env-pytest-")
atexit.register(shutil.rmtree, SCRATCH, True)
SESSION_STARTED = time.time()


def _remove_ray_server_logs() -> None:
    """The Ray fleets' server logs (``<tmp>/swe-env-<server id>.log``, kept for operators) that
    this session's fleets wrote."""
    for log in Path(tempfile.gettempdir()).glob("swe-env-ray-*.log"):
        try:
            if log.stat().st_mtime >= SESSION_STARTED:
                log.unlink()
        except OSError:
            pass


atexit.register(_remove_ray_server_logs)


class Server:
    """One server process. Its episode records go to its own temporary state directory; a restart
    is another Server with the same ``server_id``, ``state_dir`` and ``port``."""

    def __init__(self, extra_args: tuple = (), *, server_id: str = "", state_dir: str = "", port: int = 0) -> None:
        if not CLI.exists():
            raise RuntimeError(f"{CLI} is missing: run `npm run build` (npm test does)")
        self.server_id = server_id or f"pytest-{uuid.uuid4().hex[:8]}"
        self.state_dir = state_dir or tempfile.mkdtemp(prefix="swe-env-state-", dir=SCRATCH)
        self.proc = subprocess.Popen(
            ["node", str(CLI), "serve", "--port", str(port), "--server-id", self.server_id, "--state-dir", self.state_dir,
             "--tasks", str(DEMO_TASKS), "--log-level", "warn", *extra_args],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        match = re.search(r"listening on (\S+)", line)
        if not match:
            self.proc.kill()
            raise RuntimeError(f"the server did not start: {line!r}")
        self.address = match.group(1)

    def containers(self) -> list:
        out = subprocess.run(
            ["docker", "ps", "-aq", "--filter", f"label=swe-env.server={self.server_id}"], capture_output=True, text=True, check=True
        )
        return out.stdout.split()

    def leftovers(self, wait_s: float = 30) -> list:
        """The sandboxes the engine still has for this server once its Close calls are done (waiting up
        to ``wait_s`` for removals under way), then removed so that a failing test leaves none behind."""
        deadline = time.time() + wait_s
        while self.containers() and time.time() < deadline:
            time.sleep(0.2)
        left = self.containers()
        for container in left:
            subprocess.run(["docker", "rm", "-f", container], capture_output=True)
        return left

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        leftovers = self.containers()
        for cid in leftovers:
            subprocess.run(["docker", "rm", "-f", cid], capture_output=True)
        assert leftovers == [], f"the server left containers behind: {leftovers}"


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    s = Server()
    try:
        yield s
    finally:
        s.stop()


@pytest.fixture(scope="session")
def demo_tasks() -> Dict[str, dict]:
    tasks = {}
    for line in DEMO_TASKS.read_text().splitlines():
        if line.strip():
            record = json.loads(line)
            tasks[record["instance_id"]] = record
    return tasks


def gold_command(patch: str) -> str:
    return f"cat > /tmp/fix.patch <<'SWE_ENV_EOF'\n{patch}SWE_ENV_EOF\ngit apply /tmp/fix.patch"


@pytest.fixture(scope="session")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny model directory (tokenizer trained here, config) the verl and NeMo-RL tests read,
    built once for the session: nothing writes to it."""
    import verl_support

    return verl_support.build_model_dir(tmp_path_factory.mktemp("model") / "tiny")


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[object]:
    """One local Ray cluster for the whole session: the verl and NeMo-RL tests share it (a second
    start in the same process after a shutdown is what timed out on a loaded machine)."""
    import ray

    import verl_support

    # A loaded 2-core machine can take longer than Ray's default to bring the raylet up.
    os.environ.setdefault("RAY_raylet_start_wait_time_s", "180")
    ray.init(
        num_cpus=4,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": verl_support.pythonpath(), "TOKENIZERS_PARALLELISM": "false"}},
    )
    try:
        yield ray
    finally:
        ray.shutdown()
