"""mini-swe-agent (from PyPI) on swe-env episodes: its own DefaultAgent with its own scripted model
class (DeterministicModel, mini-swe-agent's test model interface) resolves a demo task through a
real server, and its swebench batch runner does the same for a dataset directory, with swe-env
grading each submission."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


MSA = Path(sys.prefix) / "mini-swe-agent"
os.environ.setdefault("MSWEA_SILENT_STARTUP", "1")
os.environ.setdefault("MSWEA_GLOBAL_CONFIG_DIR", str(MSA / ".config"))
if str(MSA) not in sys.path:
    sys.path.insert(0, str(MSA))

from minisweagent.agents.default import DefaultAgent  # noqa: E402
from minisweagent.models.test_models import DeterministicModel, make_output  # noqa: E402

from swe_env.mini_swe_agent import SUBMIT_MARKER, SweEnvEnvironment, record_turns  # noqa: E402

from conftest import DEMO_TASKS, Server, gold_command  # noqa: E402

TASK = "swe-env-demo__intervals-1"


def _demo_row(task_id: str) -> dict:
    for line in DEMO_TASKS.read_text().splitlines():
        row = json.loads(line)
        if row["instance_id"] == task_id:
            return row
    raise KeyError(task_id)


def _script(row: dict) -> list:
    return [
        make_output("I will apply the fix.", [{"command": gold_command(row["patch"])}]),
        make_output("Submitting.", [{"command": f"echo {SUBMIT_MARKER}"}]),
    ]


def test_mini_swe_agents_own_agent_resolves_a_task_through_swe_env(server: Server) -> None:
    row = _demo_row(TASK)
    env = SweEnvEnvironment(server=server.address, task_id=TASK, timeout=60)
    agent = DefaultAgent(
        record_turns(DeterministicModel(outputs=_script(row)), env),
        env,
        system_template="You fix issues. Repository: {{repo}} in {{cwd}}.",
        instance_template="{{task}}",
        step_limit=10,
    )
    info = agent.run(row["problem_statement"])
    assert info["exit_status"] == "Submitted"
    assert info["swe_env"]["reward"] == 1.0 and info["swe_env"]["resolved"] is True
    assert "diff --git" in info["submission"]
    assert agent.messages[0]["content"].startswith("You fix issues. Repository: ")
    env.cleanup()
    assert server.containers() == []

    # The same scripted agent that only submits: graded 0 by swe-env, not by what it printed.
    lazy = SweEnvEnvironment(server=server.address, task_id=TASK)
    agent = DefaultAgent(DeterministicModel(outputs=_script(row)[1:]), lazy, system_template="s", instance_template="{{task}}")
    info = agent.run(row["problem_statement"])
    assert info["exit_status"] == "Submitted" and info["swe_env"]["reward"] == 0.0
    lazy.cleanup()


def test_mini_swe_agents_batch_runner_on_swe_env(tmp_path: Path) -> None:
    """Also: the server's trajectory of the episode holds the model's messages (the runner's model
    is wrapped so that each message goes with the step it caused)."""
    trajectories = tmp_path / "trajectories"
    server = Server(("--trajectory-dir", str(trajectories)))
    try:
        _run_batch(server, tmp_path)
    finally:
        server.stop()
    recorded = [json.loads(line) for path in trajectories.rglob("*.jsonl") for line in path.read_text().splitlines()]
    steps = [r for r in recorded if r["type"] == "step"]
    # The config's exports come first (no model message made them), then one step per message.
    assert [s["tool"] for s in steps] == ["bash", "bash", "bash", "submit_solution"]
    assert "assistant" not in steps[0]
    assert steps[1]["assistant"] == {"content": "I will apply the fix.", "reasoning": "", "model": "scripted"}
    assert steps[2]["assistant"]["content"] == "Submitting."
    assert "assistant" not in steps[3]
    assert [r["reward"] for r in recorded if r["type"] == "end"] == [1]


def _run_batch(server: Server, tmp_path: Path) -> None:
    row = _demo_row(TASK)
    data = tmp_path / "data"
    data.mkdir()
    (data / "test.jsonl").write_text(json.dumps(row) + "\n")
    config = tmp_path / "swe-env.yaml"
    config.write_text(
        json.dumps(
            {
                "environment": {"environment_class": "swe_env.mini_swe_agent.SweEnvEnvironment", "server": server.address},
                "model": {"model_class": "minisweagent.models.test_models.DeterministicModel", "model_name": "scripted", "outputs": _script(row)},
            }
        )
    )
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(MSA), str(Path(__file__).resolve().parents[1])]), "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
    builtin = MSA / "minisweagent" / "config" / "benchmarks" / "swebench.yaml"
    proc = subprocess.run(
        [sys.executable, "-m", "swe_env.mini_swe_agent", "swebench", "--subset", str(data), "--split", "test", "-o", str(out), "-c", str(builtin), "-c", str(config)],
        env=env, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    preds = json.loads((out / "preds.json").read_text())
    assert preds[TASK]["model_name_or_path"] == "scripted"
    assert "diff --git" in preds[TASK]["model_patch"]
    trajectory = json.loads((out / TASK / f"{TASK}.traj.json").read_text())
    exit_message = trajectory["messages"][-1]
    assert exit_message["extra"]["exit_status"] == "Submitted"
    assert exit_message["extra"]["swe_env"]["reward"] == 1.0
    assert trajectory["info"]["swe_env"]["resolved"] is True
    assert server.containers() == []
