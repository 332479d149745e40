"""The NeMo-RL adapter as NeMo-RL runs it: a Ray actor made the way ``create_env`` makes one
(``actor_class.options(runtime_env=...).remote(cfg)``) on a local Ray cluster, stepped with
``step.remote(message_logs, metadata)`` for several batches at once, against a real server.
NeMo-RL itself is not on PyPI: its rollout loop is not run here."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any, Dict

import pytest

import verl_support as vs
from swe_env.nemo_rl import SweEnvActor

GOLD, NOFIX = "swe-env-demo__minicalc-3", "swe-env-demo__intervals-3"


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return vs.build_model_dir(tmp_path_factory.mktemp("model") / "tiny")


def _actor(ray: Any, server: Any, model_dir: Path) -> Any:
    cfg = {"addresses": server.address, "tokenizer": str(model_dir), "episode_options": {"command_timeout_s": 180}}
    actor = SweEnvActor.options(runtime_env={"env_vars": dict(os.environ, PYTHONPATH=vs.pythonpath())}).remote(cfg)
    ray.get(actor.global_post_process_and_metrics.remote({"extra_env_info": [], "message_log": []}))  # started
    return actor


def _dispose(ray: Any, env: Any, server: Any) -> list:
    """Shuts the actor down and returns the sandboxes left behind, after removing them: a failing
    test must not leave any for the next tests' leak checks to trip on."""
    ray.get(env.shutdown.remote())
    ray.kill(env)
    leftovers = server.containers()
    for container in leftovers:
        subprocess.run(["docker", "rm", "-f", container], capture_output=True)
    return leftovers


def _assistant(text: str) -> Dict[str, str]:
    return {"role": "assistant", "content": text}


def test_batch_rewards_templated_observations_and_final_info(ray_cluster: Any, server: Any, demo_tasks: Dict[str, dict], model_dir: Path) -> None:
    ray = ray_cluster
    env = _actor(ray, server, model_dir)
    try:
        gold = vs.tool_call_text("bash", {"command": vs.gold_bash(demo_tasks[GOLD]["patch"])})
        look = vs.tool_call_text("bash", {"command": "ls"})
        submit = vs.tool_call_text("submit_solution", {})
        logs = [[{"role": "user", "content": "p"}, _assistant(gold)], [{"role": "user", "content": "p"}, _assistant(look)], [{"role": "user", "content": "p"}, _assistant(look)]]
        meta = [{"task_id": GOLD}, {"task_id": NOFIX}, {"task_id": "swe-env-demo__no-such-task"}]
        first = ray.get(env.step.remote(logs, meta))
        assert list(first.terminateds.tolist()) == [False, False, True]
        # The observation continues the chat template: assistant turn closed (the model stopped at
        # </tool_call>), the tool-response wrapper, and the next assistant header.
        content = first.observations[1]["content"]
        assert content.startswith("<|im_end|>\n<|im_start|>user\n<tool_response>\n") and content.endswith("</tool_response><|im_end|>\n<|im_start|>assistant\n")
        assert "minicalc" not in content and "intervals" in content  # ls of the intervals repo
        assert first.metadata[2]["swe_env_masked"] is True and "NotFound" in first.metadata[2]["swe_env_error"]
        assert first.next_stop_strings[0] == ["</tool_call>"]

        logs2 = [logs[0] + [first.observations[0], _assistant(submit)], logs[1] + [first.observations[1], _assistant(submit)]]
        second = ray.get(env.step.remote(logs2, first.metadata[:2]))
        assert second.rewards.tolist() == [1.0, 0.0]
        assert second.terminateds.tolist() == [True, True]
        assert second.metadata[0]["swe_env_resolved"] is True and second.metadata[0]["swe_env_end"] == "submitted"

        # NeMo-RL drops a finished sample's metadata; the actor merges it back and asks to mask the failure.
        batch = {"extra_env_info": [{"task_id": GOLD}, {"task_id": NOFIX}, {"task_id": "swe-env-demo__no-such-task"}], "message_log": [logs2[0], logs2[1], logs[2]]}
        merged, metrics = ray.get(env.global_post_process_and_metrics.remote(batch))
        assert [i["swe_env_resolved"] for i in merged["extra_env_info"]] == [True, False, False]
        assert merged["mask_sample"].tolist() == [False, False, True]
        assert metrics["swe_env/masked"] == 1 and abs(metrics["swe_env/resolved_rate"] - 1 / 3) < 1e-9
    finally:
        leftovers = _dispose(ray, env, server)
    assert leftovers == []


def test_async_rollouts_step_concurrently(ray_cluster: Any, server: Any, model_dir: Path) -> None:
    """Two batches in flight on one actor: a quick one is answered while a slow one still runs.
    (A default, single-threaded Ray actor would answer the quick one only after the slow one.)"""
    ray = ray_cluster
    env = _actor(ray, server, model_dir)
    try:
        slow = env.step.remote([[_assistant(vs.tool_call_text("bash", {"command": "sleep 45; echo slow"}))]], [{"task_id": NOFIX}])
        quick = env.step.remote([[_assistant(vs.tool_call_text("bash", {"command": "echo quick"}))]], [{"task_id": NOFIX}])
        assert "quick" in ray.get(quick).observations[0]["content"]
        ready, _ = ray.wait([slow], timeout=0)
        assert ready == [], "the slow step finished first: the actor ran the batches one after the other"
        done = ray.get(slow)
        assert "slow" in done.observations[0]["content"]
        for meta in (done.metadata[0], ray.get(quick).metadata[0]):
            ray.get(env.step.remote([[_assistant(vs.tool_call_text("submit_solution", {}))]], [meta]))
    finally:
        leftovers = _dispose(ray, env, server)
    assert leftovers == []
