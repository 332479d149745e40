"""The NeMo-RL adapter as NeMo-RL runs it: a Ray actor made the way ``create_env`` makes one
(``actor_class.options(runtime_env=...).remote(cfg)``) on a local Ray cluster, stepped with
``step.remote(message_logs, metadata)`` for several batches at once, against a real server.
NeMo-RL itself is not on PyPI (its name there is a placeholder): its sync and async rollout loops
are run as ``nemo_rl_rollouts`` carries them from its source (NVIDIA-NeMo/RL 7ea279ab), with a
scripted generation in place of the GPU model server."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any, Dict

import pytest

import nemo_rl_rollouts as nr
import verl_support as vs
from swe_env.nemo_rl import SweEnvActor

GOLD, NOFIX = "swe-env-demo__minicalc-3", "swe-env-demo__intervals-3"


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
    return server.leftovers(wait_s=0)


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


RELEASE = "/tmp/swe-env-test-release"


def _release_every_sandbox(server: Any) -> None:
    """Creates RELEASE in each of the server's sandboxes, from outside (the episodes' own shells
    cannot reach each other)."""
    for container in server.containers():
        subprocess.run(["docker", "exec", container, "touch", RELEASE], capture_output=True)


def test_async_rollouts_step_concurrently(ray_cluster: Any, server: Any, model_dir: Path) -> None:
    """Two batches in flight on one actor: a quick one is answered while a slow one still runs.
    (A default, single-threaded Ray actor would answer the quick one only after the slow one.) The
    slow step waits for a file the test creates only once the quick one is answered, so it cannot
    finish first however loaded the machine is; an actor that ran the batches one after the other
    would answer the quick one only when the slow one's command timeout (180 s) ended it."""
    ray = ray_cluster
    env = _actor(ray, server, model_dir)
    try:
        wait_for_release = f"until [ -e {RELEASE} ]; do sleep 0.1; done; echo slow"
        slow = env.step.remote([[_assistant(vs.tool_call_text("bash", {"command": wait_for_release}))]], [{"task_id": NOFIX}])
        quick = env.step.remote([[_assistant(vs.tool_call_text("bash", {"command": "echo quick"}))]], [{"task_id": NOFIX}])
        assert "quick" in ray.get(quick).observations[0]["content"]
        ready, _ = ray.wait([slow], timeout=0)
        assert ready == [], "the slow step finished first: the actor ran the batches one after the other"
        # The slow episode's sandbox may still be starting: released until its step is answered.
        while not ray.wait([slow], timeout=0.5)[0]:
            _release_every_sandbox(server)
        done = ray.get(slow)
        assert "slow" in done.observations[0]["content"]
        for meta in (done.metadata[0], ray.get(quick).metadata[0]):
            ray.get(env.step.remote([[_assistant(vs.tool_call_text("submit_solution", {}))]], [meta]))
    finally:
        leftovers = _dispose(ray, env, server)
    assert leftovers == []


def _plain_actor(ray: Any, **cfg: Any) -> Any:
    actor = SweEnvActor.options(runtime_env={"env_vars": dict(os.environ, PYTHONPATH=vs.pythonpath())}).remote(dict(cfg))
    ray.get(actor.global_post_process_and_metrics.remote({"extra_env_info": [], "message_log": []}))  # started
    return actor


def _rollout_batch(tasks: list) -> Dict[str, Any]:
    # The scripted generation reads the task from the user message (a GPU model server reads tokens).
    return {"message_log": [[{"role": "user", "content": t}] for t in tasks], "extra_env_info": [{"task_id": t} for t in tasks], "task_name": ["swe_env"] * len(tasks)}



def test_sync_rollout_llm_error_raises_and_leaves_no_sandbox(ray_cluster: Any, server: Any) -> None:
    """NeMo-RL's sync rollout generates for the whole batch in one call: an LLM error on the second
    turn raises out of run_multi_turn_rollout (no batch is left to mask). Its training scripts run
    shutdown_environments in ``finally``; the environment's shutdown closes the two episodes the
    rollout had started. Before: both sandboxes stayed until the server's idle timeout."""
    ray = ray_cluster
    env = _plain_actor(ray, addresses=server.address, max_rollout_turns=4)
    generation = nr.ScriptedGeneration({NOFIX: [("bash", "ls"), ("raise", "vLLM engine died")], GOLD: [("bash", "ls"), ("raise", "vLLM engine died")]})
    try:
        with pytest.raises(RuntimeError, match="vLLM engine died"):
            try:
                nr.run_multi_turn_rollout(generation, _rollout_batch([NOFIX, GOLD]), {"swe_env": env}, max_rollout_turns=4)
            finally:
                assert len(server.containers()) == 2  # the first turn's steps started both episodes
                nr.shutdown_environments({"swe_env": env})
    finally:
        ray.kill(env)
        leftovers = server.leftovers()
    assert leftovers == []


def test_async_rollout_llm_error_is_masked_and_nothing_leaks(ray_cluster: Any, server: Any, demo_tasks: Dict[str, dict]) -> None:
    """NeMo-RL's async rollout catches a sample's generation error and ends it with the reward so
    far. global_post_process_and_metrics closes the episodes the rollout left open and masks the
    sample the LLM error cut (mask_sample), while a sample out of turns is the model's 0 (trained)
    and a gold fix scores 1. Before: the cut sample trained as 0 unmasked, and its sandbox and the
    out-of-turns one stayed running."""
    ray = ray_cluster
    env = _plain_actor(ray, addresses=server.address, max_rollout_turns=3)
    out_of_turns = "swe-env-demo__textkit-3"
    generation = nr.ScriptedGeneration(
        {
            GOLD: [("bash", vs.gold_bash(demo_tasks[GOLD]["patch"])), ("submit",)],
            NOFIX: [("bash", "ls"), ("raise", "vLLM engine died")],
            out_of_turns: [("bash", "ls")],
        }
    )
    try:
        batch, metrics = nr.run_async_multi_turn_rollout(generation, _rollout_batch([GOLD, NOFIX, out_of_turns]), {"swe_env": env}, max_rollout_turns=3)
        assert [m["turn_count"] for m in metrics] == [2, 2, 3] and batch["total_reward"].tolist() == [1.0, 0.0, 0.0]
        merged, stats = ray.get(env.global_post_process_and_metrics.remote(batch))
        ends = [i.get("swe_env_end") for i in merged["extra_env_info"]]
        assert ends == ["submitted", "llm_error", "max_turns"], merged["extra_env_info"]
        assert merged["mask_sample"].tolist() == [False, True, False]
        assert "generation raises" in merged["extra_env_info"][1]["swe_env_error"]
        assert stats["swe_env/masked"] == 1
    finally:
        ray.get(env.shutdown.remote())
        ray.kill(env)
        leftovers = server.leftovers()
    assert leftovers == []


def test_prefetching_wraps_the_grpo_dataloader(server: Any, demo_tasks: Dict[str, dict]) -> None:
    """NeMo-RL batches (extra_env_info per sample) through the wrapper grpo_train iterates: batch
    k+1's images are asked for when batch k is handed out."""
    from swe_env.nemo_rl import prefetching

    ids = sorted(demo_tasks)[:6]
    batches = [_rollout_batch(ids[i : i + 2]) for i in range(0, 6, 2)]
    loader = prefetching(batches, {"addresses": server.address}, lookahead=1)
    try:
        seen = []
        for batch in loader:
            seen.append(([k for k, _ in loader.sent], batch))
        assert [s for s, _ in seen] == [[0, 1], [0, 1, 2], [0, 1, 2]]
        assert [b for _, b in seen] == batches
        assert [t for _, sent in loader.sent for t in sent] == ids
        assert all(r.ready for r in loader.results(timeout_s=30).values())
    finally:
        loader.close()


def test_two_environments_in_one_batch_leave_each_others_samples_alone(ray_cluster: Any, server: Any, demo_tasks: Dict[str, dict]) -> None:
    """Two swe_env environments (NeMo-RL's task_to_env names each) in one batch: each post-process
    closes and masks only its own samples, and keeps what the other said of the rest. Before, the
    first marked every sample whose episode it did not know as cut by an LLM error: the other
    environment's gold 1 was masked (and its episode closed under it). An LLM error on a sample's
    first turn (no episode yet) of this environment's name is masked, not trained as 0."""
    ray = ray_cluster
    first = _plain_actor(ray, addresses=server.address, max_rollout_turns=3, task_name="swe_env")
    second = _plain_actor(ray, addresses=server.address, max_rollout_turns=3, task_name="swe_env_b")
    other_gold = "swe-env-demo__minicalc-1"
    first_turn_error = "swe-env-demo__textkit-1"
    generation = nr.ScriptedGeneration(
        {
            GOLD: [("bash", vs.gold_bash(demo_tasks[GOLD]["patch"])), ("submit",)],
            other_gold: [("bash", vs.gold_bash(demo_tasks[other_gold]["patch"])), ("submit",)],
            first_turn_error: [("raise", "vLLM engine died")],
        }
    )
    batch_in = _rollout_batch([GOLD, other_gold, first_turn_error])
    batch_in["task_name"] = ["swe_env", "swe_env_b", "swe_env"]
    try:
        batch, _ = nr.run_async_multi_turn_rollout(generation, batch_in, {"swe_env": first, "swe_env_b": second}, max_rollout_turns=3)
        assert batch["total_reward"].tolist() == [1.0, 1.0, 0.0]
        merged, stats = ray.get(first.global_post_process_and_metrics.remote(batch))
        merged, stats_b = ray.get(second.global_post_process_and_metrics.remote(merged))
        ends = [i.get("swe_env_end") for i in merged["extra_env_info"]]
        assert ends == ["submitted", "submitted", "llm_error"], merged["extra_env_info"]
        assert merged["mask_sample"].tolist() == [False, False, True]
        assert stats["swe_env/masked"] == 1 and stats["swe_env/resolved_rate"] == 0.5
        assert stats_b["swe_env/masked"] == 0 and stats_b["swe_env/resolved_rate"] == 1.0
    finally:
        for env in (first, second):
            ray.get(env.shutdown.remote())
            ray.kill(env)
        leftovers = server.leftovers()
    assert leftovers == []
