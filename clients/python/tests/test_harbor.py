"""swe-env as a Harbor environment, driven by Harbor's own CLI (`harbor run`, harbor 0.26.0 from
PyPI in its own Python 3.12 venv) against a real server with the demo tasks, exported with
`swe-env export harbor`: the oracle agent (the gold patch) scores 1, the nothing agent 0, and an
agent that writes a conftest.py marking every test passed and forges Harbor's reward files in its
container scores 0 (the grading is swe-env's, in its own container); a trial whose sandbox the engine
loses has an exception and no reward, never a 0. No container is left."""
from __future__ import annotations

# What it covers, by name (scripts/changed-tests.mjs selects a client test by the modules it names):
# swe_env.harbor.environment, swe_env.harbor.episode, swe_env.harbor.commands, swe_env.harbor.transfer,
# swe_env.harbor.reward, and AsyncSweEnvClient.interrupt.

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict

import pytest

from conftest import CLI, DEMO_TASKS, ROOT, Server

TASK = "swe-env-demo__intervals-1"
ENVIRONMENT = "swe_env.harbor.environment:SweEnvEnvironment"
TESTS = Path(__file__).resolve().parent
HACK = "harbor_agents:ConftestHackAgent"
REMOVED = "harbor_agents:SandboxRemovedAgent"
AGENTS = [{"name": "oracle"}, {"name": "nop"}, {"import_path": HACK}, {"import_path": REMOVED}]


@pytest.fixture(scope="module")
def harbor_python() -> Path:
    out = subprocess.run(["bash", str(ROOT / "scripts" / "setup-harbor-python.sh")], capture_output=True, text=True, check=True)
    return Path(out.stdout.strip().splitlines()[-1]) / "bin" / "python"


@pytest.fixture(scope="module")
def harbor_server() -> object:
    # A server of its own: the module's container check counts this server's containers only.
    s = Server()
    try:
        yield s
    finally:
        s.stop()


def export(out: Path) -> Path:
    subprocess.run(["node", str(CLI), "export", "harbor", "--tasks", str(DEMO_TASKS), "--out", str(out), "--instance", TASK], check=True, capture_output=True)
    return out / TASK


def test_export_writes_a_harbor_task_without_the_hidden_tests(tmp_path: Path, demo_tasks: Dict[str, dict]) -> None:
    task_dir = export(tmp_path)
    files = sorted(p.relative_to(task_dir).as_posix() for p in task_dir.rglob("*") if p.is_file())
    assert files == ["environment/Dockerfile", "environment/swe-env.json", "instruction.md", "solution/gold.patch", "solution/solve.sh", "task.toml", "tests/test.sh"]
    record = demo_tasks[TASK]
    assert (task_dir / "solution" / "gold.patch").read_text() == record["patch"]
    assert json.loads((task_dir / "environment" / "swe-env.json").read_text()) == {"task_id": TASK}
    text = "".join(p.read_text() for p in task_dir.rglob("*") if p.is_file())
    # Neither the test patch nor the names of the hidden tests are in what the agent's side gets.
    assert record["test_patch"] not in text
    for test in json.loads(record["FAIL_TO_PASS"]) if isinstance(record["FAIL_TO_PASS"], str) else record["FAIL_TO_PASS"]:
        assert test.split("::")[-1] not in text


def harbor_env() -> Dict[str, str]:
    # LiteLLM (a Harbor dependency) would fetch its model cost map from the network at import.
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS.parent), str(TESTS)]), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}


def test_environment_calls(tmp_path: Path, harbor_python: Path, harbor_server: Server) -> None:
    """exec (a fresh process each: directory, variables, exit code, timeout; a cancelled call's command
    stopped, not answering the next), uploads and downloads
    larger than one chunk, and a download's symlinks kept inside its target."""
    task_dir = export(tmp_path / "tasks")
    run = subprocess.run(
        [str(harbor_python), str(TESTS / "harbor_env_check.py"), harbor_server.address, str(task_dir), str(tmp_path / "work")],
        env=harbor_env(), capture_output=True, text=True, timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["type"] == "swe-env"
    assert out["first"] == ["/testbed\nout\nerr\n", 3]
    # `cd` and `export` of one exec do not reach the next; given variables do.
    assert out["second"] == ["/testbed\nleak=none given=a b\n", 0]
    assert out["cwd"] == "/tmp\n"
    assert out["timeout_code"] == 124
    assert out["cancelled"] is True and out["after_cancel"] == ["next\n", 0], out["after_cancel"]
    assert out["uploaded"].startswith("hello\n") and len(out["uploaded"].split()[-1]) == 64
    assert out["dir_round_trip"] is True
    assert out["file_round_trip"] == "hello\n"
    # tarfile's data filter refuses the first link out of the target (absolute or climbing).
    assert out["evil"] in ("AbsoluteLinkError", "LinkOutsideDestinationError"), out["evil"]
    assert out["verifier_mounted"] is True and out["agent_mounted"] is False
    assert harbor_server.leftovers() == []


def test_harbor_run_is_graded_by_swe_env(tmp_path: Path, harbor_python: Path, harbor_server: Server) -> None:
    task_dir = export(tmp_path / "tasks")
    jobs = tmp_path / "jobs"
    config = {
        "job_name": "swe-env-harbor",
        "jobs_dir": str(jobs),
        "n_concurrent_trials": 4,
        "quiet": True,
        "tasks": [{"path": str(task_dir)}],
        "agents": AGENTS,
        "environment": {"import_path": ENVIRONMENT, "kwargs": {"address": harbor_server.address}},
    }
    config_path = tmp_path / "job.json"
    config_path.write_text(json.dumps(config))
    run = subprocess.run(
        [str(harbor_python.parent / "harbor"), "run", "-c", str(config_path), "-y"],
        env=harbor_env(), capture_output=True, text=True, timeout=900, cwd=tmp_path,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    results = {}
    for path in (jobs / "swe-env-harbor").glob("*/result.json"):
        result = json.loads(path.read_text())
        agent = result["config"]["agent"]
        name = agent.get("name") or agent.get("import_path")
        results[name] = result
    assert set(results) == {"oracle", "nop", HACK, REMOVED}, list(results)
    # The environment's failure: an exception and no reward at all (Harbor has no masked reward), never a 0.
    removed = results.pop(REMOVED)
    assert removed["exception_info"]["exception_type"] == "EnvironmentFailed", removed["exception_info"]
    assert "INFRA_ERROR" in removed["exception_info"]["exception_message"]
    assert removed["verifier_result"] is None, removed["verifier_result"]
    for name, result in results.items():
        assert result.get("exception_info") is None, (name, result["exception_info"])
    rewards = {name: result["verifier_result"]["rewards"]["reward"] for name, result in results.items()}
    assert rewards == {"oracle": 1, "nop": 0, HACK: 0}, rewards
    # The reward is swe-env's report, not a file from the agent's container (the hack forged both).
    hack_dir = next(p.parent for p in (jobs / "swe-env-harbor").glob("*/result.json") if HACK in p.read_text())
    report = json.loads((hack_dir / "verifier" / "swe-env-report.json").read_text())
    assert report["reward"] == 0 and report["status"] == "OK", report
    # The grading saw the hack and dropped it: its conftest.py never ran with the hidden tests.
    assert any(f.startswith("conftest.py") for f in report["report"]["dropped_files"]), report["report"].get("dropped_files")
    assert not (hack_dir / "verifier" / "reward.txt").exists()
    assert harbor_server.leftovers() == []


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
