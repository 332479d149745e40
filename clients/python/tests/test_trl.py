"""A real GRPO run: TRL 1.16's ``GRPOTrainer`` trains a tiny Qwen3 (built here, random weights) for
two steps against the real server on a demo task, through ``swe_env.trl.SweEnvSpec``.

Each step's batch holds two GRPO groups of four rollouts: one of ``swe-env-demo__intervals-1``
(two rollouts fix the bug, one submits it unfixed, one has its sandbox removed under it) and one of
a task the server does not know (every Reset refused). The turns are scripted (a random policy
writes no tool call, see trl_support.py); the tool-call parsing and loop, the rewards, advantages,
loss and optimizer step are TRL's. Asserted on TRL's own computed values: the rewards are the
server's grading, the INFRA_ERROR rollout and the refused Resets are masked (reward None -> NaN,
advantage 0, out of the group's mean), and no container of the server is left afterwards.
"""
from __future__ import annotations

import math
import os
import subprocess
from typing import Any, Dict, List

import pytest
import torch

from swe_env.trl import SweEnvSpec
from trl_support import ScriptedGeneration, build_model, build_tokenizer, tool_call

TASK = "swe-env-demo__intervals-1"
UNKNOWN = "swe-env-demo__no-such-task-1"
G = 4
ROLES = ["fix", "nofix", "infra", "fix"]  # by position in the task's group
PROBE = "infra-probe-3f9c"


def _kill_sandbox(gen: ScriptedGeneration, _: str) -> str:
    """The infra rollout's second turn: its sandbox is removed from outside first (the engine's
    failure, never the model's), so the Step that follows is INFRA_ERROR."""
    envs = [e for e in gen.trainer.environments if PROBE in e.last_observation]
    assert len(envs) == 1, "the infra rollout's probe output was not found"
    ids = subprocess.run(
        ["docker", "ps", "-aq", "--filter", f"label=swe-env.episode={envs[0].episode_id}"], capture_output=True, text=True, check=True
    ).stdout.split()
    assert ids, "the infra rollout has no sandbox to remove"
    subprocess.run(["docker", "rm", "-f", *ids], capture_output=True, check=True)
    return tool_call("bash", {"command": "echo after"}, role="infra")


PLANS: Dict[str, List[Any]] = {
    # Two bash calls: the second only fixes the bug if the first's `cd` persisted in the episode's shell.
    "fix": [
        tool_call("bash", {"command": "cd intervals"}, role="fix"),
        tool_call("bash", {"command": "sed -i 's/x < self.end/x <= self.end/' interval.py"}),
        tool_call("submit_solution"),
    ],
    "nofix": [tool_call("bash", {"command": "git status --short"}, role="nofix"), tool_call("submit_solution")],
    "infra": [tool_call("bash", {"command": f"echo {PROBE}"}, role="infra"), _kill_sandbox, tool_call("submit_solution")],
    "refused": [tool_call("bash", {"command": "true"}, role="refused"), tool_call("submit_solution")],
}


def _role_of(prompt: str, position: int) -> str:
    return "refused" if "could not be started" in prompt else ROLES[position % G]


def _corpus(demo_tasks: Dict[str, dict]) -> List[str]:
    texts = [t["problem_statement"] + t["patch"] for t in demo_tasks.values()]
    return texts + [str(turn) for plan in PLANS.values() for turn in plan if isinstance(turn, str)]


def _trainer_class() -> Any:
    from trl import GRPOTrainer

    class RecordingGRPOTrainer(GRPOTrainer):
        """TRL's trainer, recording what it computed for each batch (its rewards and advantages)
        and the state of each rollout's environment."""

        batches: List[Dict[str, Any]] = []

        def _generate_and_score_completions(self, inputs: Any) -> Any:
            out = super()._generate_and_score_completions(inputs)
            n = len(inputs)
            self.batches.append(
                {
                    "task_ids": [x["task_id"] for x in inputs],
                    "rewards": list(self._logs["rewards"]["SweEnvRollout"])[-n:],
                    "advantages": out["advantages"].tolist(),
                    "envs": [
                        {"masked": e.masked, "end_reason": e.end_reason, "error": e.error, "graded": e._episode.last.reward if e._episode.last else None,
                         "resolved": bool(((e._episode.last.report or {}) if e._episode.last else {}).get("resolved", False))}
                        for e in self.environments
                    ],
                }
            )
            return out

    return RecordingGRPOTrainer


def _group_advantages(rewards: List[float]) -> List[float]:
    """GRPO's advantages of one group from its scored rewards alone (what masking must give)."""
    t = torch.tensor(rewards)
    return ((t - t.mean()) / (t.std() + 1e-4)).tolist()


def test_grpo_trainer_trains_on_graded_rewards_and_masks_environment_failures(server, demo_tasks, tmp_path):
    os.environ["TRL_EXPERIMENTAL_SILENCE"] = "1"
    from trl import GRPOConfig

    spec = SweEnvSpec(server.address, [TASK, UNKNOWN], num_generations=G, max_observation_chars=300)
    tokenizer = build_tokenizer(_corpus(demo_tasks))
    model = build_model(tokenizer)
    generation = ScriptedGeneration(tokenizer, PLANS, _role_of)
    generation.install(model)
    args = GRPOConfig(
        output_dir=str(tmp_path),
        num_generations=G,
        per_device_train_batch_size=2 * G,
        max_steps=2,
        max_completion_length=1024,
        max_tool_calling_iterations=6,
        shuffle_dataset=False,
        beta=0.0,
        learning_rate=1e-3,
        logging_steps=1,
        save_strategy="no",
        report_to=[],
        use_cpu=True,
        bf16=False,
        seed=0,
    )
    trainer_class = _trainer_class()
    trainer = trainer_class(
        model=model, processing_class=tokenizer, args=args,
        train_dataset=spec.train_dataset, environment_factory=spec.environment_factory, reward_funcs=spec.reward_funcs,
    )
    generation.trainer = trainer
    try:
        trainer.train()
    finally:
        left_open = spec.close()
        leftovers = server.leftovers()
    assert left_open == [] and leftovers == [], f"episodes left open {left_open}, containers left {leftovers}"

    batches = trainer_class.batches
    assert len(batches) == 2, "two steps, one generation batch each"
    for batch in batches:
        assert batch["task_ids"] == [TASK] * G + [UNKNOWN] * G
        rewards, advantages, envs = batch["rewards"], batch["advantages"], batch["envs"]
        for j, role in enumerate(ROLES):
            env = envs[j]
            if role == "infra":
                assert env["masked"] and env["end_reason"] == "infra_error", env
                assert math.isnan(rewards[j]) and advantages[j] == 0.0
            else:
                # The reward TRL trained on is the server's grading of the submitted episode.
                assert not env["masked"] and env["end_reason"] == "submitted", env
                assert rewards[j] == env["graded"] == (1.0 if role == "fix" else 0.0)
                assert env["resolved"] is (role == "fix")
        scored = [j for j, role in enumerate(ROLES) if role != "infra"]
        expected = _group_advantages([rewards[j] for j in scored])
        assert [advantages[j] for j in scored] == pytest.approx(expected, abs=1e-4), "the masked rollout must stay out of the group's mean"
        with_zero = _group_advantages([0.0 if math.isnan(r) else r for r in rewards[:G]])
        assert [advantages[j] for j in scored] != pytest.approx([with_zero[j] for j in scored], abs=1e-3)
        for j in range(G, 2 * G):  # the unknown task's group: every Reset refused, every sample masked
            assert envs[j]["masked"] and "NotFound" in envs[j]["error"], envs[j]
            assert math.isnan(rewards[j]) and advantages[j] == 0.0
    losses = [h for h in trainer.state.log_history if "loss" in h]
    assert len(losses) == 2 and all(math.isfinite(float(h["loss"])) for h in losses)
    assert all(h["rewards/SweEnvRollout/mean"] == pytest.approx(2 / 3) for h in losses), "the mean over the scored rollouts only"


def test_tool_methods_carry_the_server_schemas_as_transformers_renders_them():
    """What the model is shown is what the server declared (names, descriptions, required, enums);
    names TRL reserves or Python cannot hold are left out rather than shadowing TRL's methods."""
    import inspect

    from transformers.utils import get_json_schema

    from swe_env.trl import SweEnvRollout, tool_methods

    schemas = [
        {"type": "function", "function": {"name": "bash", "description": "Run a bash command.\nThe shell persists.", "parameters": {
            "type": "object", "properties": {"command": {"type": "string", "description": "The bash command to run."}}, "required": ["command"]}}},
        {"type": "function", "function": {"name": "submit_solution", "description": "Finish the episode.", "parameters": {"type": "object", "properties": {}}}},
        {"type": "function", "function": {"name": "view", "description": "Show a file.", "parameters": {"type": "object", "properties": {
            "path": {"type": "string", "description": "Which file."}, "mode": {"type": "string", "enum": ["head", "tail"], "description": "Which end."},
            "lines": {"type": "integer", "description": "How many.", "default": 20}}, "required": ["path"]}}},
        {"type": "function", "function": {"name": "reset", "description": "Shadows TRL's reset.", "parameters": {}}},
        {"type": "function", "function": {"name": "not-an-identifier", "description": "x", "parameters": {}}},
    ]
    methods = tool_methods(schemas)
    assert list(methods) == ["bash", "submit_solution", "view"]
    cls = type("Probe", (SweEnvRollout,), {"_spec": None, **methods})
    env = cls()
    public = [n for n, _ in inspect.getmembers(cls, inspect.isfunction) if not n.startswith("_")]
    assert sorted(public) == ["bash", "get_reward", "reset", "submit_solution", "view"], "TRL takes every public function for a tool"
    bash = get_json_schema(env.bash)["function"]
    assert bash["name"] == "bash" and bash["description"] == "Run a bash command. The shell persists."
    assert bash["parameters"]["properties"] == {"command": {"type": "string", "description": "The bash command to run."}}
    assert bash["parameters"]["required"] == ["command"]
    assert get_json_schema(env.submit_solution)["function"]["parameters"] == {"type": "object", "properties": {}}
    view = get_json_schema(env.view)["function"]["parameters"]
    assert view["required"] == ["path"]
    assert view["properties"]["mode"] == {"type": "string", "enum": ["head", "tail"], "description": "Which end."}
    assert view["properties"]["lines"] == {"type": "integer", "description": "How many."}
    assert inspect.iscoroutinefunction(cls.bash), "async: TRL's trainers await them on their own loop"


def test_deferred_grading_answers_the_submit_at_once_and_rewards_the_servers_grading(server):
    """``defer_grading``: the submit's answer does not wait for the grading, ``get_reward`` does,
    and it is the server's grading either way (1 for the fix, 0 unfixed), with nothing left open."""
    import asyncio

    from swe_env.trl.rollout import DEFERRED_SUBMIT

    spec = SweEnvSpec(server.address, [TASK], num_generations=2, defer_grading=True)
    fixed, unfixed = spec.environment_factory(), spec.environment_factory()
    try:
        row = spec.train_dataset[0]
        assert "Interval" in fixed.reset(**row) and "Interval" in unfixed.reset(**row)

        async def rollouts() -> List[Any]:
            await fixed.bash(command="sed -i 's/x < self.end/x <= self.end/' intervals/interval.py")
            answers = [await fixed.submit_solution(), await unfixed.submit_solution()]
            return answers + [await fixed.get_reward(), await unfixed.get_reward()]

        answers = asyncio.run(rollouts())
    finally:
        left_open = spec.close()
        leftovers = server.leftovers()
    assert answers == [DEFERRED_SUBMIT, DEFERRED_SUBMIT, 1.0, 0.0]
    assert fixed.end_reason == unfixed.end_reason == "submitted" and not fixed.masked and not unfixed.masked
    assert left_open == [] and leftovers == []
