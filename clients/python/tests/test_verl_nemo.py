"""The verl agent loop driven by a scripted stand-in for verl's LLM server manager (token ids in,
token ids out), the verl tool pair, the dataset converter and the NeMo-RL adapter, all against the
real server. verl and NeMo-RL are not installed here: their surfaces are import-guarded stand-ins."""
import asyncio
import json
from types import SimpleNamespace

import pytest

from swe_env.nemo_rl import SweEnvEnvironment
from swe_env.verl import SweBashTool, SweEnvAgentLoop, SweSubmitTool, compute_score
from swe_env.verl._compat import HAVE_VERL
from swe_env.verl.dataset import build_rows, write_rows
from swe_env import SweEnvClient

from conftest import gold_command

TASK = "swe-env-demo__minicalc-3"


class CharTokenizer:
    """A chat-template tokenizer with one token per character."""

    def apply_chat_template(self, messages, tools=None, add_generation_prompt=False, tokenize=True):
        text = "".join(f"<|{m['role']}|>{m['content']}<|end|>" for m in messages)
        if add_generation_prompt:
            text += "<|assistant|>"
        return [ord(c) for c in text]

    def decode(self, ids, skip_special_tokens=True):
        return "".join(chr(i) for i in ids)

    @staticmethod
    def encode(text):
        return [ord(c) for c in text]


class ScriptedServerManager:
    def __init__(self, replies, fail_at=None):
        self.replies = list(replies)
        self.calls = []
        self.fail_at = fail_at

    async def generate(self, request_id, prompt_ids, sampling_params, **kwargs):
        self.calls.append(len(prompt_ids))
        if self.fail_at is not None and len(self.calls) == self.fail_at:
            raise RuntimeError("the inference server went away")
        text = self.replies.pop(0)
        ids = CharTokenizer.encode(text)
        return SimpleNamespace(token_ids=ids, log_probs=[-0.5] * len(ids))


def hermes(name, arguments):
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": arguments}) + "\n</tool_call><|end|>"


def make_loop(server, manager, **kwargs):
    config = {"actor_rollout_ref": {"rollout": {"response_length": 200_000}}}
    return SweEnvAgentLoop(SimpleNamespace(config=config), manager, CharTokenizer(), None, env_addr=server.address, **kwargs)


def test_agent_loop_masks_turns_reward_and_close(server, demo_tasks):
    replies = [hermes("bash", {"command": gold_command(demo_tasks[TASK]["patch"])}), hermes("submit_solution", {})]
    manager = ScriptedServerManager(replies)
    loop = make_loop(server, manager)
    out = asyncio.run(loop.run({"temperature": 1.0}, extra_info={"task_id": TASK}, uid="group-1"))
    assert out.reward_score == 1.0, out.extra_fields
    assert out.num_turns == 3
    first, second = (CharTokenizer.encode(r) for r in replies)
    # model tokens masked 1, then the observation masked 0, then the model's second turn masked 1
    assert out.response_mask[: len(first)] == [1] * len(first)
    assert out.response_ids[: len(first)] == first
    obs_len = len(out.response_ids) - len(first) - len(second)
    assert obs_len > 0
    assert out.response_mask[len(first) : len(first) + obs_len] == [0] * obs_len
    assert out.response_mask[-len(second) :] == [1] * len(second)
    assert out.response_ids[-len(second) :] == second
    assert len(out.response_logprobs) == len(out.response_ids)
    assert "<|tool|>" in CharTokenizer().decode(out.response_ids[len(first) : len(first) + obs_len])
    assert out.extra_fields["resolved"] == "True"
    assert server.containers() == []  # the episode was closed


def test_agent_loop_closes_the_episode_and_scores_0_on_an_exception(server):
    manager = ScriptedServerManager([hermes("bash", {"command": "echo hi"})], fail_at=2)
    out = asyncio.run(make_loop(server, manager).run({}, extra_info={"task_id": TASK}))
    assert out.reward_score == 0.0
    assert "the inference server went away" in out.extra_fields["error"]
    assert all(isinstance(v, str) for v in out.extra_fields.values())
    assert server.containers() == []


def test_agent_loop_grades_the_current_state_when_the_turn_budget_runs_out(server, demo_tasks):
    manager = ScriptedServerManager([hermes("bash", {"command": gold_command(demo_tasks[TASK]["patch"])})])
    out = asyncio.run(make_loop(server, manager, max_turns=1).run({}, extra_info={"task_id": TASK}))
    assert out.extra_fields["status"] == "BUDGET"
    assert out.reward_score == 1.0
    assert server.containers() == []


def test_agent_loop_without_task_id_reports_the_error():
    out = asyncio.run(make_loop(SimpleNamespace(address="127.0.0.1:1"), ScriptedServerManager([])).run({}, extra_info={}))
    assert out.reward_score == 0.0 and "task_id" in out.extra_fields["error"]
    assert HAVE_VERL is False  # these tests run against the stand-ins


def test_verl_tool_pair_keyed_by_request_id(server, demo_tasks):
    schema = {"type": "function", "function": {"name": "bash"}}
    config = {"env_addr": server.address}
    bash, submit = SweBashTool(config, schema), SweSubmitTool(config, {"type": "function", "function": {"name": "submit_solution"}})
    agent_data = SimpleNamespace(request_id="traj-" + "a1b2c3")

    async def call(tool, params):
        instance_id, _ = await tool.create(create_kwargs={"task_id": TASK})
        try:
            return await tool.execute(instance_id, params, agent_data=agent_data)
        finally:
            await tool.release(instance_id)

    async def main():
        response, reward, _ = await call(bash, {"command": "export MARK=42; cd minicalc"})
        assert reward == 0.0
        response, _, _ = await call(bash, {"command": "echo $MARK; pwd"})  # same episode, new tool instance
        assert response.text == "42\n/testbed/minicalc\n"
        await call(bash, {"command": "cd /testbed && " + gold_command(demo_tasks[TASK]["patch"])})
        response, reward, metrics = await call(submit, {})
        assert reward == 1.0 and metrics["resolved"] is True
        response, reward, _ = await call(bash, {"command": "true"})
        assert "ended" in response.text and reward == 0.0

    asyncio.run(main())
    assert compute_score("swe_env/demo", "", TASK, extra_info={"tool_rewards": [0.0, 1.0]}) == 1.0
    assert compute_score("swe_env/demo", "", TASK, extra_info={}) == 0.0
    assert server.containers() == []


def test_dataset_converter_writes_verl_rows(server, tmp_path):
    with SweEnvClient(server.address) as client:
        rows = build_rows(client)
    assert len(rows) == 9
    row = rows[0]
    assert row["agent_name"] == "swe_env"
    assert row["prompt"][0]["role"] == "user" and "Resolve the following issue" in row["prompt"][0]["content"]
    assert row["reward_model"] == {"style": "rule", "ground_truth": row["extra_info"]["task_id"]}
    assert row["extra_info"]["tools_kwargs"]["bash"]["create_kwargs"]["task_id"] == row["extra_info"]["task_id"]
    written = write_rows(rows, str(tmp_path / "train.parquet"))
    if written.endswith(".jsonl"):
        with open(written) as f:
            assert len(f.read().splitlines()) == 9


def test_nemo_rl_adapter_on_a_batch_of_4(server, demo_tasks):
    env = SweEnvEnvironment({"addresses": server.address})
    tasks = ["swe-env-demo__textkit-1", "swe-env-demo__textkit-2", "swe-env-demo__intervals-1", "swe-env-demo__minicalc-3"]
    metadata = [{"task_id": t} for t in tasks]

    def assistant(text):
        return [{"role": "user", "content": "prompt"}, {"role": "assistant", "content": text}]

    # Turn 1: two samples apply their gold fix, one runs a command, one writes no tool call.
    batch = [
        assistant(hermes("bash", {"command": gold_command(demo_tasks[tasks[0]]["patch"])})),
        assistant(hermes("bash", {"command": gold_command(demo_tasks[tasks[1]]["patch"])})),
        assistant("```bash\nls tests\n```"),
        assistant("I am not sure what to do."),
    ]
    ret = env.step(batch, metadata)
    assert [m["step_index"] for m in ret.metadata] == [1, 1, 1, 1]
    assert list(ret.terminateds) == [False] * 4
    assert "test_interval.py" in ret.observations[2]["content"]
    assert ret.metadata[3]["status"] == "INVALID_ACTION"
    assert ret.observations[0]["role"] == "tool"
    # Turn 2: everyone submits.
    ret = env.step([assistant(hermes("submit_solution", {}))] * 4, ret.metadata)
    assert list(ret.rewards) == [1.0, 1.0, 0.0, 0.0]
    assert list(ret.terminateds) == [True] * 4
    assert [m["resolved"] for m in ret.metadata] == [True, True, False, False]
    env.shutdown()
    assert server.containers() == []
