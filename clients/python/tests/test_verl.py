"""The swe_env agent loop driven by verl 0.9's own code: the dataset rows our converter writes, read
by verl's RLHFDataset and collate_fn, repeated into GRPO groups by DataProto.repeat, run by verl's
AgentLoopManager over two Ray AgentLoopWorkers (real post-processing, real DataProto.concat), with a
real tokenizer and chat template, a real swe-env server and Docker. Only the LLM is scripted."""
from __future__ import annotations

import asyncio
import time
import uuid
from pathlib import Path
from typing import Any, Dict, List, Tuple

import numpy as np
import pytest
import torch

import verl_support as vs
from swe_env import SweEnvClient
from swe_env.verl.agent_loop import EXTRA_FIELDS
from swe_env.verl.dataset import build_rows, write_rows

GOLD, NOFIX, RAISE1, RAISE3 = "swe-env-demo__textkit-1", "swe-env-demo__minicalc-1", "swe-env-demo__intervals-1", "swe-env-demo__textkit-3"
DEAD_TASK = "swe-env-demo__intervals-2"  # run by the swe_env_dead agent entry: no server at its address
MISSING = "swe-env-demo__no-such-task"


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rows(server: Any, tmp_path: Path) -> Path:
    with SweEnvClient(server.address) as client:
        rows = {r["extra_info"]["task_id"]: r for r in build_rows(client, dataset="")}
    chosen = [rows[t] for t in (GOLD, NOFIX, RAISE1, RAISE3, DEAD_TASK)]
    missing = dict(rows[GOLD], extra_info=dict(rows[GOLD]["extra_info"], task_id=MISSING))
    dead = dict(rows[DEAD_TASK], agent_name="swe_env_dead")
    batch = chosen[:4] + [missing, dead]
    for i, row in enumerate(batch):
        row["extra_info"] = dict(row["extra_info"], index=i)
    return Path(write_rows(batch, str(tmp_path / "train.parquet")))


def _verl_batch(parquet: Path, model_dir: Path, config: Any, n: int) -> Any:
    """What verl's trainer hands the rollout: RLHFDataset rows, collated, uid per prompt, repeated."""
    from transformers import AutoTokenizer
    from verl import DataProto
    from verl.utils.dataset.rl_dataset import RLHFDataset, collate_fn

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    dataset = RLHFDataset(data_files=[str(parquet)], tokenizer=tokenizer, config=config.data)
    batch = DataProto.from_single_dict(collate_fn([dataset[i] for i in range(len(dataset))]))
    batch.non_tensor_batch["uid"] = np.array([str(uuid.uuid4()) for _ in range(len(batch))], dtype=object)
    return batch.repeat(repeat_times=n, interleave=True)


def _policies(demo_tasks: Dict[str, dict]) -> Dict[str, Any]:
    policies = {
        GOLD: [("bash", vs.gold_bash(demo_tasks[GOLD]["patch"])), ("submit",)],
        NOFIX: [("bash", "ls"), ("submit",)],
        RAISE1: [("raise", "vLLM engine died")],
        RAISE3: [("bash", "ls"), ("bash", "git status --short"), ("raise", "vLLM engine died")],
        DEAD_TASK: [("submit",)],
    }
    markers = {t: vs.marker_for(demo_tasks[t]) for t in policies}
    return {"policies": policies, "markers": markers}


def test_verl_batch_with_failures_completes_and_masks(server: Any, demo_tasks: Dict[str, dict], model_dir: Path, ray_cluster: Any, tmp_path: Path) -> None:
    from verl.experimental.agent_loop.agent_loop import AgentLoopManager

    agent_yaml = vs.write_agent_loop_yaml(tmp_path / "agent_loop.yaml", server.address, f"127.0.0.1:{_free_port()}")
    config = vs.verl_config(model_dir, agent_yaml, workers=2)
    batch = _verl_batch(_rows(server, tmp_path), model_dir, config, n=2)
    assert len(batch) == 12
    llm = vs.ScriptedLLM(str(model_dir), **_policies(demo_tasks))
    manager = AgentLoopManager.create(config=config, llm_client=llm)
    out = manager.generate_sequences(batch)

    assert len(out) == 12
    task_of = [str(x) for x in out.non_tensor_batch["swe_env_task_id"]]
    end = [str(x) for x in out.non_tensor_batch["swe_env_end"]]
    masked = [bool(x) for x in out.non_tensor_batch["swe_env_masked"]]
    scores = out.batch["rm_scores"].sum(dim=-1).tolist()
    mask_sums = out.batch["response_mask"].sum(dim=-1).tolist()
    by_task: Dict[str, List[int]] = {}
    for i, t in enumerate(task_of):
        by_task.setdefault(t, []).append(i)
    # Every sample comes back, every key on every sample, GRPO pairs intact.
    assert sorted(by_task) == sorted([GOLD, NOFIX, RAISE1, RAISE3, MISSING, DEAD_TASK])
    assert all(len(v) == 2 for v in by_task.values())
    for key in EXTRA_FIELDS:
        assert key in out.non_tensor_batch and len(out.non_tensor_batch[key]) == 12
    errors = {task_of[i]: str(out.non_tensor_batch["swe_env_error"][i]) for i in range(12)}
    for i in by_task[GOLD]:
        assert (scores[i], end[i], masked[i], bool(out.non_tensor_batch["swe_env_resolved"][i])) == (1.0, "submitted", False, True), errors
        assert mask_sums[i] > 0
    for i in by_task[NOFIX]:
        assert (scores[i], end[i], masked[i]) == (0.0, "submitted", False)
        assert mask_sums[i] > 0  # a real 0 trains
    expected_failures = {MISSING: "reset_failed", DEAD_TASK: "reset_failed", RAISE1: "llm_error", RAISE3: "llm_error"}
    for task, how in expected_failures.items():
        for i in by_task[task]:
            assert (end[i], masked[i], mask_sums[i]) == (how, True, 0), (task, end[i], out.non_tensor_batch["swe_env_error"][i])
            assert out.non_tensor_batch["swe_env_error"][i]
    assert "NotFound" in str(out.non_tensor_batch["swe_env_error"][by_task[MISSING][0]])
    assert "Unavailable" in str(out.non_tensor_batch["swe_env_error"][by_task[DEAD_TASK][0]])
    # RAISE3 failed after two tool calls: its tokens are kept (masked), its turns counted by verl's rule.
    for i in by_task[RAISE3]:
        assert int(out.non_tensor_batch["swe_env_steps"][i]) == 2
        assert int(out.non_tensor_batch["__num_turns__"][i]) == 2 + 2 + 1
    for i in by_task[GOLD]:
        assert int(out.non_tensor_batch["__num_turns__"][i]) == 1 + 2 + 1  # 2 assistant, 1 tool turn
    # Log-probs were asked for: present for the whole batch, the scripted values on model tokens.
    logprobs, mask = out.batch["rollout_log_probs"], out.batch["response_mask"]
    i = by_task[GOLD][0]
    assert torch.all(logprobs[i][mask[i].bool()] == -0.25)
    # Shapes verl pads to: every prompt fits prompt_length (left-padded), attention covers something.
    assert out.batch["prompts"].shape == (12, 4096)
    assert torch.all(out.batch["attention_mask"].sum(dim=-1) > 0)
    # No sandbox left behind.
    deadline = time.time() + 30
    while server.containers() and time.time() < deadline:
        time.sleep(0.5)
    assert server.containers() == []


def test_swe_env_grpo_keeps_masked_samples_out_of_the_group() -> None:
    from verl.trainer.ppo.core_algos import get_adv_estimator_fn

    import swe_env.verl  # noqa: F401  (registers the estimator)

    estimator = get_adv_estimator_fn("swe_env_grpo")
    rewards = torch.zeros(4, 3)
    rewards[0, -1], rewards[1, -1] = 1.0, 0.0  # group a: a real 1 and a real 0
    mask = torch.ones(4, 3)
    mask[2] = 0  # group a's third sample: an infra error (masked, reward 0)
    rewards[3, -1] = 1.0  # group b: one sample
    index = np.array(["a", "a", "a", "b"], dtype=object)
    adv, _ = estimator(token_level_rewards=rewards, response_mask=mask, index=index, config=None)
    plain, _ = get_adv_estimator_fn("grpo")(token_level_rewards=rewards[:2], response_mask=mask[:2], index=index[:2], config=None)
    assert torch.allclose(adv[:2], plain)  # the group's statistics ignore the masked sample
    assert torch.all(adv[2] == 0)
    with_masked, _ = get_adv_estimator_fn("grpo")(token_level_rewards=rewards[:3], response_mask=mask[:3], index=index[:3], config=None)
    assert not torch.allclose(with_masked[:2], plain)  # plain grpo would have shifted them


def _worker(config: Any, llm: Any) -> Any:
    from verl.experimental.agent_loop.agent_loop import AgentLoopWorker

    return AgentLoopWorker(config, llm)


def test_prompt_overflow_is_cut_to_fit_and_said(server: Any, demo_tasks: Dict[str, dict], model_dir: Path, tmp_path: Path) -> None:
    """A prompt longer than rollout.prompt_length: the task text is cut in the middle (the template's
    preamble and tool list stay), the sample still trains, and extra_fields say so."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    with SweEnvClient(server.address) as client:
        reset = client.reset(NOFIX)
        client.close(reset.episode_id)
    full = len(tokenizer.apply_chat_template([{"role": "user", "content": reset.observation}], tools=reset.tools, add_generation_prompt=True, tokenize=True)["input_ids"])
    tools_only = len(tokenizer.apply_chat_template([{"role": "user", "content": ""}], tools=reset.tools, add_generation_prompt=True, tokenize=True)["input_ids"])
    prompt_length = tools_only + (full - tools_only) // 3
    agent_yaml = vs.write_agent_loop_yaml(tmp_path / "agent_loop.yaml", server.address, "127.0.0.1:1")
    config = vs.verl_config(model_dir, agent_yaml, workers=1, prompt_length=prompt_length, logprobs=False)
    batch = _verl_batch(_rows(server, tmp_path), model_dir, config, n=1)
    batch = batch[[i for i, r in enumerate(batch.non_tensor_batch["extra_info"]) if r["task_id"] == NOFIX]]
    llm = vs.ScriptedLLM(str(model_dir), policies={NOFIX: [("bash", "ls"), ("submit",)]}, markers={})
    out = asyncio.run(_worker(config, llm).generate_sequences(batch))
    assert bool(out.non_tensor_batch["swe_env_prompt_truncated"][0]) is True
    assert str(out.non_tensor_batch["swe_env_end"][0]) == "submitted" and not bool(out.non_tensor_batch["swe_env_masked"][0])
    prompt = out.batch["prompts"][0][out.batch["attention_mask"][0][:prompt_length].bool()].tolist()
    text = tokenizer.decode(prompt, skip_special_tokens=False)
    assert len(prompt) <= prompt_length
    assert text.startswith("<|im_start|>system") and '"name": "bash"' in text  # preamble and tools kept
    assert "characters omitted by swe-env" in text
    assert "rollout_log_probs" not in out.batch.keys()  # not asked for: none, not zeros


def test_chat_template_kwargs_and_observation_cap(server: Any, demo_tasks: Dict[str, dict], model_dir: Path, tmp_path: Path) -> None:
    """data.apply_chat_template_kwargs reach the tokenizer (enable_thinking=False renders an empty
    think block after every assistant header) and observations are cut to max_observation_chars."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    agent_yaml = vs.write_agent_loop_yaml(tmp_path / "agent_loop.yaml", server.address, "127.0.0.1:1", max_observation_chars=300)
    config = vs.verl_config(model_dir, agent_yaml, workers=1, chat_template_kwargs={"enable_thinking": False})
    batch = _verl_batch(_rows(server, tmp_path), model_dir, config, n=1)
    batch = batch[[i for i, r in enumerate(batch.non_tensor_batch["extra_info"]) if r["task_id"] == GOLD]]
    policies = _policies(demo_tasks)
    policies["policies"][GOLD] = [("bash", "seq 1 5000"), *policies["policies"][GOLD]]
    out = asyncio.run(_worker(config, vs.ScriptedLLM(str(model_dir), **policies)).generate_sequences(batch))
    assert float(out.batch["rm_scores"][0].sum()) == 1.0
    response = out.batch["responses"][0][out.batch["attention_mask"][0][4096:].bool()].tolist()
    text = tokenizer.decode(response, skip_special_tokens=False)
    prompt = out.batch["prompts"][0][out.batch["attention_mask"][0][:4096].bool()].tolist()
    assert tokenizer.decode(prompt, skip_special_tokens=False).endswith("<|im_start|>assistant\n<think>\n\n</think>\n\n")
    assert text.count("<|im_start|>assistant\n<think>\n\n</think>\n\n") == 2  # after each of the 2 tool responses
    assert "<tool_response>\n1\n2\n" in text and "characters omitted by swe-env" in text and "\n4999\n5000\n\n</tool_response>" in text
    assert int(out.non_tensor_batch["swe_env_observations_truncated"][0]) == 1
    # Tool-response tokens and the next assistant header are not trained on; model tokens are.
    mask = out.batch["response_mask"][0][: len(response)].tolist()
    assert mask[0] == 1 and 0 in mask


def test_cancelled_rollout_closes_its_sandbox(server: Any, demo_tasks: Dict[str, dict], model_dir: Path, tmp_path: Path) -> None:
    """A rollout cancelled while its episode runs (verl aborting a slow sample) removes its sandbox
    at once instead of leaving it to the idle timeout."""
    import hydra
    from verl.experimental.agent_loop.agent_loop import DictConfigWrap

    agent_yaml = vs.write_agent_loop_yaml(tmp_path / "agent_loop.yaml", server.address, "127.0.0.1:1")
    config = vs.verl_config(model_dir, agent_yaml, workers=1)
    worker = _worker(config, vs.ScriptedLLM(str(model_dir), policies={NOFIX: [("hang",)]}, markers={NOFIX: vs.marker_for(demo_tasks[NOFIX])}))
    from omegaconf import OmegaConf

    entry = OmegaConf.load(agent_yaml)[0]
    loop_obj = hydra.utils.instantiate(
        config=entry,
        trainer_config=DictConfigWrap(config=config),
        server_manager=worker.llm_client,
        tokenizer=worker.tokenizer,
        processor=None,
        dataset_cls=worker.dataset_cls,
        data_config=DictConfigWrap(config.data),
    )

    async def scenario() -> None:
        task = asyncio.ensure_future(loop_obj.run({"logprobs": False}, extra_info={"task_id": NOFIX}, raw_prompt=[{"role": "user", "content": "x"}]))
        deadline = time.time() + 60
        while not server.containers() and time.time() < deadline:
            await asyncio.sleep(0.02)
        assert server.containers(), "the episode never started"
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())
    deadline = time.time() + 30
    while server.containers() and time.time() < deadline:
        time.sleep(0.2)
    assert server.containers() == []


def test_tool_agent_loop_with_the_tool_pair(server: Any, demo_tasks: Dict[str, dict], model_dir: Path, tmp_path: Path) -> None:
    """verl's own ToolAgentLoop with the package's tool_config.yaml, rows made with
    --agent tool_agent, and the reward function loaded by verl from pkg://swe_env.verl.tools."""
    import yaml
    from verl.utils.import_utils import load_extern_object

    from swe_env.verl import config_path

    tools_yaml = yaml.safe_load(Path(config_path("tool_config.yaml")).read_text())
    for tool in tools_yaml["tools"]:
        tool["config"]["env_addr"] = server.address
    (tmp_path / "tools.yaml").write_text(yaml.safe_dump(tools_yaml))
    agent_yaml = vs.write_agent_loop_yaml(tmp_path / "agent_loop.yaml", server.address, "127.0.0.1:1")
    config = vs.verl_config(model_dir, agent_yaml, workers=1)
    config.actor_rollout_ref.rollout.multi_turn.tool_config_path = str(tmp_path / "tools.yaml")
    config.actor_rollout_ref.rollout.multi_turn.max_tool_response_length = 4096
    with SweEnvClient(server.address) as client:
        rows = [r for r in build_rows(client, agent="tool_agent") if r["extra_info"]["task_id"] in (GOLD, NOFIX)]
    parquet = Path(write_rows(rows, str(tmp_path / "tools.parquet")))
    batch = _verl_batch(parquet, model_dir, config, n=1)
    assert set(batch.non_tensor_batch["agent_name"]) == {"tool_agent"}
    out = asyncio.run(_worker(config, vs.ScriptedLLM(str(model_dir), **_policies(demo_tasks))).generate_sequences(batch))
    score = load_extern_object("pkg://swe_env.verl.tools", "compute_score")
    rewards = {}
    for i in range(len(out)):
        extra_info = dict(out.non_tensor_batch["extra_info"][i])
        extra_info.update({k: out.non_tensor_batch[k][i] for k in ("tool_rewards", "turn_scores")})
        rewards[extra_info["task_id"]] = score("swe_env", "", extra_info["task_id"], extra_info=extra_info)
    assert rewards == {GOLD: 1.0, NOFIX: 0.0}
    deadline = time.time() + 30
    while server.containers() and time.time() < deadline:
        time.sleep(0.5)
    assert server.containers() == []  # submit_solution ended and closed both episodes


def test_budget_is_graded_and_not_masked(server: Any, demo_tasks: Dict[str, dict], model_dir: Path, tmp_path: Path) -> None:
    """The turn budget runs out before a submit: the repository is graded as it is (gold applied: 1)."""
    agent_yaml = vs.write_agent_loop_yaml(tmp_path / "agent_loop.yaml", server.address, "127.0.0.1:1", max_turns=1)
    config = vs.verl_config(model_dir, agent_yaml, workers=1)
    batch = _verl_batch(_rows(server, tmp_path), model_dir, config, n=1)
    batch = batch[[i for i, r in enumerate(batch.non_tensor_batch["extra_info"]) if r["task_id"] == GOLD]]
    out = asyncio.run(_worker(config, vs.ScriptedLLM(str(model_dir), **_policies(demo_tasks))).generate_sequences(batch))
    assert str(out.non_tensor_batch["swe_env_end"][0]) == "budget"
    assert float(out.batch["rm_scores"][0].sum()) == 1.0 and not bool(out.non_tensor_batch["swe_env_masked"][0])
    assert int(out.non_tensor_batch["swe_env_steps"][0]) == 2  # the bash call and the grading submit


def test_swe_env_tool_agent_masks_env_failures_and_llm_errors_and_leaks_nothing(server: Any, demo_tasks: Dict[str, dict], model_dir: Path, tmp_path: Path) -> None:
    """verl's ToolAgentLoop with the tool pair (agent_name swe_env_tool_agent): a refused Reset and
    an LLM server raising after two tool calls are masked samples in a batch that completes (plain
    tool_agent: the first trained as 0, the second failed verl's whole batch), a trajectory that
    ends without submitting trains as the model's 0, and no sandbox is left running (Docker)."""
    import yaml

    from swe_env.verl import config_path

    tools_yaml = yaml.safe_load(Path(config_path("tool_config.yaml")).read_text())
    for tool in tools_yaml["tools"]:
        tool["config"]["env_addr"] = server.address
    (tmp_path / "tools.yaml").write_text(yaml.safe_dump(tools_yaml))
    agent_yaml = vs.write_agent_loop_yaml(tmp_path / "agent_loop.yaml", server.address, "127.0.0.1:1")
    config = vs.verl_config(model_dir, agent_yaml, workers=1)
    config.actor_rollout_ref.rollout.multi_turn.tool_config_path = str(tmp_path / "tools.yaml")
    config.actor_rollout_ref.rollout.multi_turn.max_tool_response_length = 4096
    with SweEnvClient(server.address) as client:
        rows = {r["extra_info"]["task_id"]: r for r in build_rows(client, agent="swe_env_tool_agent")}
    missing = dict(rows[GOLD], extra_info=dict(rows[GOLD]["extra_info"], task_id=MISSING))
    missing["extra_info"]["tools_kwargs"] = {name: {"create_kwargs": {"task_id": MISSING}} for name in ("bash", "submit_solution")}
    chosen = [rows[GOLD], rows[NOFIX], rows[RAISE3], missing]
    for i, row in enumerate(chosen):
        row["extra_info"] = dict(row["extra_info"], index=i)
    batch = _verl_batch(Path(write_rows(chosen, str(tmp_path / "tools.parquet"))), model_dir, config, n=1)
    assert set(batch.non_tensor_batch["agent_name"]) == {"swe_env_tool_agent"}
    policies = _policies(demo_tasks)
    policies["policies"][NOFIX] = [("bash", "ls"), ("text", "I could not fix it.")]  # ends without a submit
    llm = vs.ScriptedLLM(str(model_dir), **policies)
    try:
        out = asyncio.run(_worker(config, llm).generate_sequences(batch))
        task_of = [str(r["task_id"]) for r in out.non_tensor_batch["extra_info"]]
        masked = {t: bool(out.non_tensor_batch["swe_env_masked"][i]) for i, t in enumerate(task_of)}
        errors = {t: str(out.non_tensor_batch["swe_env_error"][i]) for i, t in enumerate(task_of)}
        mask_sums = {t: int(out.batch["response_mask"][i].sum()) for i, t in enumerate(task_of)}
        rewards = {t: max(list(out.non_tensor_batch["tool_rewards"][i]) or [0.0]) for i, t in enumerate(task_of)}
        assert masked == {GOLD: False, NOFIX: False, RAISE3: True, MISSING: True}, errors
        assert rewards[GOLD] == 1.0 and mask_sums[GOLD] > 0
        assert rewards[NOFIX] == 0.0 and mask_sums[NOFIX] > 0  # the model's own failure trains as 0
        assert mask_sums[RAISE3] == 0 and "llm_error" in errors[RAISE3] and "vLLM engine died" in errors[RAISE3]
        assert mask_sums[MISSING] == 0 and "reset failed" in errors[MISSING] and "NotFound" in errors[MISSING]
    finally:
        leftovers = server.leftovers()
    # Every trajectory's episode closed when it ended: the submitted ones, the one without a submit,
    # the failed Reset and the one the LLM error cut.
    assert leftovers == []


def _prefetch_dataset(server: Any, model_dir: Path, tmp_path: Path, shuffle: bool) -> Tuple[Any, List[str]]:
    """SweEnvRLHFDataset over 6 demo rows (batches of 2, lookahead 1), loaded by verl's own
    create_rl_dataset from data.custom_cls."""
    from omegaconf import OmegaConf
    from transformers import AutoTokenizer
    from verl.trainer.ppo.utils import create_rl_dataset

    from swe_env.verl.prefetch import SweEnvRLHFDataset

    with SweEnvClient(server.address) as client:
        rows = build_rows(client, dataset="")
    parquet = write_rows(rows[:6], str(tmp_path / "train.parquet"))
    ids = [r["extra_info"]["task_id"] for r in rows[:6]]
    config = vs.verl_config(model_dir, tmp_path / "unused.yaml", workers=1)
    OmegaConf.set_struct(config, False)
    config.data.custom_cls.path, config.data.custom_cls.name = "pkg://swe_env.verl.prefetch", "SweEnvRLHFDataset"
    config.data.update({"swe_env_addr": server.address, "prefetch_lookahead": 1, "shuffle": shuffle, "train_batch_size": 2})
    dataset = create_rl_dataset([parquet], config.data, AutoTokenizer.from_pretrained(model_dir), None)
    assert isinstance(dataset, SweEnvRLHFDataset) and dataset.task_ids == ids
    return dataset, ids


def test_dataset_prefetches_the_next_batches_when_verls_dataloader_reads_one(server: Any, model_dir: Path, tmp_path: Path) -> None:
    """Read by a DataLoader with verl's collate_fn in file order for two epochs: reading batch k
    prefetches batch k+1 (the lookahead), the last batch of an epoch the next epoch's first, each
    batch once per epoch; the dataset still pickles into dataloader workers."""
    import pickle

    from torch.utils.data import DataLoader, SequentialSampler
    from verl.utils.dataset.rl_dataset import collate_fn

    dataset, ids = _prefetch_dataset(server, model_dir, tmp_path, shuffle=False)
    loader = DataLoader(dataset, batch_size=2, sampler=SequentialSampler(dataset), collate_fn=collate_fn, drop_last=True)
    sent_after: List[List[Tuple[int, int]]] = []
    for epoch in range(2):
        for k, batch in enumerate(loader):
            assert [e["task_id"] for e in batch["extra_info"]] == ids[k * 2 : k * 2 + 2]
            sent_after.append(sorted(dataset._swe_env_sent))
        if epoch == 0:
            results = dataset.prefetch_results(timeout_s=30)
    # (epoch, first row): batch 0 read sends batches 0 and 1; batch 1 batch 2; the last batch the
    # next epoch's first, which is not sent again when read (the past epoch's are forgotten).
    assert sent_after[:3] == [[(0, 0), (0, 2)], [(0, 0), (0, 2), (0, 4)], [(0, 0), (0, 2), (0, 4), (1, 0)]]
    assert sent_after[3:] == [[(1, 0), (1, 2)], [(1, 0), (1, 2), (1, 4)], [(1, 0), (1, 2), (1, 4), (2, 0)]]
    assert sorted(results) == [(0, 0), (0, 2), (0, 4), (1, 0)] and all(r.ready for r in results.values())
    assert sorted(t for r in results.values() for i in r.images for t in i.task_ids) == sorted(ids + ids[:2])
    clone = pickle.loads(pickle.dumps(dataset))  # what a dataloader worker gets: no client, its own
    assert clone._swe_env is None and clone.task_ids == ids
    dataset._swe_env.shutdown()


def test_shuffled_dataset_prefetches_every_batch_of_every_epoch(server: Any, model_dir: Path, tmp_path: Path) -> None:
    """verl's shuffled order (RandomSampler, no workers): every batch read is prefetched when read,
    in the third epoch as in the first, whatever rows earlier epochs' batches began with."""
    from torch.utils.data import DataLoader, RandomSampler
    from verl.utils.dataset.rl_dataset import collate_fn

    dataset, ids = _prefetch_dataset(server, model_dir, tmp_path, shuffle=True)
    generator = torch.Generator().manual_seed(7)
    loader = DataLoader(dataset, batch_size=2, sampler=RandomSampler(dataset, generator=generator), collate_fn=collate_fn, drop_last=True)
    read: List[List[str]] = []
    for _ in range(3):
        for batch in loader:
            read.append([e["task_id"] for e in batch["extra_info"]])
    results = dataset.prefetch_results(timeout_s=30)
    # One Prefetch per batch read, each for the batch's own tasks, in the order read.
    assert len(read) == 9 and len(results) == 9
    assert [sorted(t for i in results[key].images for t in i.task_ids) for key in sorted(results, reverse=True)] == [sorted(r) for r in read]
    dataset._swe_env.shutdown()
