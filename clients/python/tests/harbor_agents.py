"""Harbor agents for tests/test_harbor.py, imported by Harbor's own CLI (``module:Class`` import
paths) in the Harbor venv (Python 3.12, scripts/setup-harbor-python.sh)."""
from __future__ import annotations

import subprocess

from harbor.agents.base import BaseAgent

# A conftest.py that reports every test as passed, whatever it did.
CONFTEST = '''import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    report.outcome = "passed"
    report.longrepr = None
'''

# What the agent (root in its container) writes where Harbor's default verifier reads the reward.
FORGED = "mkdir -p /logs/verifier && echo 1 > /logs/verifier/reward.txt && echo '{\"reward\": 1}' > /logs/verifier/reward.json"


class ConftestHackAgent(BaseAgent):
    """Writes a conftest.py marking every test passed, and forges the reward files."""

    @staticmethod
    def name() -> str:
        return "conftest-hack"

    def version(self) -> str:
        return "1.0.0"

    async def setup(self, environment) -> None:  # type: ignore[no-untyped-def]
        pass

    async def run(self, instruction, environment, context) -> None:  # type: ignore[no-untyped-def]
        result = await environment.exec(f"cat > conftest.py <<'EOF'\n{CONFTEST}EOF\n{FORGED}", user="root")
        assert result.return_code == 0, result.stdout


class SandboxRemovedAgent(BaseAgent):
    """Its sandbox is removed from outside mid-run (the engine's failure, never the model's): the
    next command is swe-env's INFRA_ERROR, which must leave the trial without a reward, never 0."""

    @staticmethod
    def name() -> str:
        return "sandbox-removed"

    def version(self) -> str:
        return "1.0.0"

    async def setup(self, environment) -> None:  # type: ignore[no-untyped-def]
        pass

    async def run(self, instruction, environment, context) -> None:  # type: ignore[no-untyped-def]
        await environment.exec("echo before")
        label = f"label=swe-env.episode={environment.session_id}"
        ids = subprocess.run(["docker", "ps", "-aq", "--filter", label], capture_output=True, text=True, check=True).stdout.split()
        assert ids, f"no sandbox with {label}"
        subprocess.run(["docker", "rm", "-f", *ids], capture_output=True, check=True)
        await environment.exec("echo after")
