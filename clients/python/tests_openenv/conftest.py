"""The OpenEnv tests run in their own venv (``<test venv>/openenv``, scripts/setup-python.sh: OpenEnv's
dependency set clashes with the shared test venv's pins), against a real swe-env server started
by the Python client's test harness (tests/conftest.py, loaded here under another module name)."""
from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, Iterator, Optional, Sequence

import pytest

_spec = importlib.util.spec_from_file_location("swe_env_tests_conftest", Path(__file__).resolve().parents[1] / "tests" / "conftest.py")
assert _spec is not None and _spec.loader is not None
base = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = base
_spec.loader.exec_module(base)

Server = base.Server
gold_command = base.gold_command
server = base.server
demo_tasks = base.demo_tasks


class OpenEnvServer:
    """``python -m swe_env.openenv`` (this checkout's, in this venv) on a free loopback port."""

    def __init__(self, swe_env: Server, extra_args: Sequence[str] = (), env: Optional[Dict[str, str]] = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "swe_env.openenv", "--swe-env", swe_env.address, "--port", "0", *extra_args],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env={**os.environ, **(env or {})},
        )
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        match = re.search(r"openenv listening on (\S+)", line)
        if not match:
            self.proc.kill()
            self.proc.wait()
            raise RuntimeError(f"the OpenEnv server did not start: {line!r}")
        self.url = match.group(1)

    def stop(self) -> int:
        """SIGTERM (uvicorn's graceful shutdown), its exit code."""
        self.proc.terminate()
        try:
            return self.proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise


@pytest.fixture(scope="session")
def openenv(server: Server) -> Iterator[OpenEnvServer]:
    s = OpenEnvServer(server, ["--max-sessions", "8"])
    try:
        yield s
    finally:
        s.stop()
