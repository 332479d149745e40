"""NeMo-RL's rollout loops, as the tests drive the NeMo-RL environment with them.

NeMo-RL is not on PyPI (``nemo-rl`` there is a 7 KB placeholder, 0.0.0), so its rollout code cannot
be installed here. These are its functions from NVIDIA-NeMo/RL 7ea279ab, ``nemo_rl/experience/
rollouts.py`` (``calculate_rewards``, ``run_multi_turn_rollout``, ``run_sample_multi_turn_rollout``,
``_run_multi_turn_rollout_async``, ``run_async_multi_turn_rollout``) and ``nemo_rl/algorithms/
grpo.py`` (``shutdown_environments``), kept line for line where they decide what the environment
sees and when: the environment is a Ray actor stepped with ``step.remote(messages, metadata)`` and
``ray.get``; the sync loop generates for the whole active batch in one call (an error raises out of
the rollout), keeps the metadata of continuing samples only and ends samples the environment
terminates; the async loop catches a generation error per sample, prints it and ends the sample
with the reward so far. What is left out is NeMo-RL's tokenisation, sequence-length truncation,
multimodal and metrics bookkeeping: messages carry text, and the generation is a scripted stand-in
for the GPU model server (``ScriptedGeneration``) working on the messages. Apache-2.0, NVIDIA.
"""
from __future__ import annotations

import asyncio
import copy
from typing import Any, Dict, List, NamedTuple, Sequence, Tuple

import ray
import torch

import verl_support as vs


class EnvironmentReturn(NamedTuple):
    observations: List[Dict[str, str]]
    metadata: List[Any]
    next_stop_strings: List[Any]
    rewards: torch.Tensor
    terminateds: torch.Tensor


class ScriptedGeneration:
    """Stands in for the policy's vLLM generation. The task is the first user message's content;
    the turn is the number of assistant messages. A policy turn is ("bash", command), ("submit",)
    or ("raise", message): the generation call fails, as a dead vLLM engine's does."""

    def __init__(self, policies: Dict[str, Sequence[Tuple[str, ...]]]) -> None:
        self.policies = {k: [tuple(t) for t in v] for k, v in policies.items()}

    def _text(self, message_log: List[Dict[str, Any]]) -> str:
        task = next(m["content"] for m in message_log if m["role"] == "user")
        policy = self.policies[task]
        action = policy[min(sum(1 for m in message_log if m["role"] == "assistant"), len(policy) - 1)]
        if action[0] == "raise":
            raise RuntimeError(action[1])
        if action[0] == "bash":
            return vs.tool_call_text("bash", {"command": action[1]})
        return vs.tool_call_text("submit_solution", {})

    def generate(self, message_logs: List[List[Dict[str, Any]]]) -> List[str]:
        return [self._text(log) for log in message_logs]  # one call for the batch: one failure fails it

    async def generate_async(self, message_log: List[Dict[str, Any]]) -> str:
        await asyncio.sleep(0)
        return self._text(message_log)


def calculate_rewards(batch: Dict[str, Any], task_to_env: Dict[str, Any]) -> EnvironmentReturn:
    to_env = [[{"role": m["role"], "content": m["content"]} for m in batch["message_log"][i]] for i in range(len(batch["message_log"]))]
    task_names = batch["task_name"]
    task_groups: Dict[str, List[Tuple[int, Any]]] = {}
    for i, task_name in enumerate(task_names):
        if task_name not in task_groups:
            task_groups[task_name] = []
        task_groups[task_name].append((i, to_env[i]))
    futures = []
    future_to_indices = {}
    for task_name, group in task_groups.items():
        if task_name not in task_to_env:
            raise ValueError(f"No environment found for task type: {task_name}")
        indices = [idx for idx, _ in group]
        messages = [msg for _, msg in group]
        env_info = [batch["extra_env_info"][i] for i in indices]
        future = task_to_env[task_name].step.remote(messages, env_info)
        futures.append(future)
        future_to_indices[future] = indices
    results = ray.get(futures)
    all_rewards, all_observations, all_terminateds, all_stops, all_metadata, order = [], [], [], [], [], []
    for future, result in zip(futures, results):
        indices = future_to_indices[future]
        observations, metadata, next_stop_strings, rewards, terminateds, _answers = result
        for i, idx in enumerate(indices):
            order.append(idx)
            all_rewards.append(rewards[i])
            all_observations.append(observations[i])
            all_terminateds.append(terminateds[i])
            all_stops.append(next_stop_strings[i])
            all_metadata.append(metadata[i])
    sorted_indices = sorted(range(len(order)), key=lambda k: order[k])
    return EnvironmentReturn(
        observations=[all_observations[i] for i in sorted_indices],
        metadata=[all_metadata[i] for i in sorted_indices],
        next_stop_strings=[all_stops[i] for i in sorted_indices],
        rewards=torch.tensor([float(all_rewards[i]) for i in sorted_indices]),
        terminateds=torch.tensor([bool(all_terminateds[i]) for i in sorted_indices]),
    )


def run_multi_turn_rollout(generation: ScriptedGeneration, input_batch: Dict[str, Any], task_to_env: Dict[str, Any], max_rollout_turns: int) -> Dict[str, Any]:
    current_batch = dict(input_batch)  # BatchedDataDict.copy(): shallow
    batch_size = len(current_batch["message_log"])
    active_indices = torch.arange(batch_size)
    total_rewards = torch.zeros(batch_size, dtype=torch.float32)
    sample_truncated = torch.zeros(batch_size, dtype=torch.bool)
    for _turn in range(max_rollout_turns):
        if len(active_indices) == 0:
            break
        active_batch = {key: [current_batch[key][i] for i in active_indices.tolist()] for key in ("message_log", "extra_env_info", "task_name")}
        # generate_responses(policy_generation, ...): appends each response to its message log
        texts = generation.generate(active_batch["message_log"])
        for i, text in enumerate(texts):
            active_batch["message_log"][i].append({"role": "assistant", "content": text})
        env_output = calculate_rewards(active_batch, task_to_env)
        total_rewards[active_indices] += env_output.rewards
        for i, global_idx in enumerate(active_indices.tolist()):
            current_batch["message_log"][global_idx].append({"role": env_output.observations[i]["role"], "content": env_output.observations[i]["content"]})
        done = env_output.terminateds.bool()
        active_indices_local_next = torch.where(~done)[0]
        active_indices = active_indices[active_indices_local_next]
        continuing_metadata = [env_output.metadata[i] for i in active_indices_local_next.tolist()]
        for i, global_idx in enumerate(active_indices.tolist()):
            if continuing_metadata[i] is not None:
                current_batch["extra_env_info"][global_idx] = continuing_metadata[i]
    current_batch["total_reward"] = total_rewards
    current_batch["truncated"] = sample_truncated
    return current_batch


async def run_sample_multi_turn_rollout(sample_idx: int, initial_sample_state: Dict[str, Any], generation: ScriptedGeneration, task_to_env: Dict[str, Any], max_rollout_turns: int) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    current_message_log = copy.deepcopy(initial_sample_state["message_log"])
    current_extra_env_info = copy.deepcopy(initial_sample_state["extra_env_info"])
    task_name = initial_sample_state["task_name"]
    total_reward = 0.0
    turn_count = 0
    terminated = False
    truncated = False
    for _turn in range(max_rollout_turns):
        if terminated or truncated:
            break
        turn_count += 1
        try:
            text = await generation.generate_async(current_message_log)
            current_message_log = current_message_log + [{"role": "assistant", "content": text}]
        except Exception as e:
            print(f"Error generating response for sample {sample_idx}: {e}")
            break
        sample_batch = {"message_log": [current_message_log], "extra_env_info": [current_extra_env_info], "task_name": [task_name]}
        env_output = await asyncio.to_thread(calculate_rewards, sample_batch, task_to_env)
        total_reward += float(env_output.rewards[0].item())
        terminated = env_output.terminateds[0].item()
        current_message_log.append({"role": env_output.observations[0]["role"], "content": env_output.observations[0]["content"]})
        if not terminated and not truncated:
            if env_output.metadata[0] is not None:
                current_extra_env_info = env_output.metadata[0]
    final_sample_state = {
        "message_log": current_message_log,
        "extra_env_info": current_extra_env_info,
        "task_name": task_name,
        "total_reward": torch.tensor(total_reward),
        "idx": sample_idx,
    }
    return final_sample_state, {"turn_count": turn_count, "terminated": terminated, "truncated": truncated, "max_turns_reached": turn_count >= max_rollout_turns}


async def _run_multi_turn_rollout_async(generation: ScriptedGeneration, input_batch: Dict[str, Any], task_to_env: Dict[str, Any], max_rollout_turns: int) -> Tuple[Dict[str, Any], List[Dict[str, Any]]]:
    batch_size = len(input_batch["message_log"])
    states = [{"message_log": input_batch["message_log"][i], "extra_env_info": input_batch["extra_env_info"][i], "task_name": input_batch["task_name"][i]} for i in range(batch_size)]

    async def run_single_sample_with_error_handling(i: int, sample_state: Dict[str, Any]) -> Tuple[Dict[str, Any], Dict[str, Any]]:
        try:
            return await run_sample_multi_turn_rollout(i, sample_state, generation, task_to_env, max_rollout_turns)
        except Exception as error:
            raise RuntimeError(f"Error in sample {i} rollout: {error}") from error

    results = await asyncio.gather(*(run_single_sample_with_error_handling(i, s) for i, s in enumerate(states)), return_exceptions=False)
    finals = [r[0] for r in results]
    metrics = [r[1] for r in results]
    final_batch = {
        "message_log": [s["message_log"] for s in finals],
        "extra_env_info": [s["extra_env_info"] for s in finals],
        "task_name": [s["task_name"] for s in finals],
        "total_reward": torch.stack([s["total_reward"] for s in finals]),
        "idx": [s["idx"] for s in finals],
        "truncated": torch.tensor([m["truncated"] for m in metrics], dtype=torch.bool),
    }
    return final_batch, metrics


def run_async_multi_turn_rollout(generation: ScriptedGeneration, input_batch: Dict[str, Any], task_to_env: Dict[str, Any], max_rollout_turns: int) -> Tuple[Dict[str, Any], List[Dict[str, Any]]]:
    return asyncio.run(_run_multi_turn_rollout_async(generation, input_batch, task_to_env, max_rollout_turns))


def shutdown_environments(task_to_env: Dict[str, Any]) -> None:
    """grpo.py's, which run_grpo.py and grpo_train call in ``finally``."""
    seen = set()
    for task_name, environment in task_to_env.items():
        if id(environment) in seen:
            continue
        seen.add(id(environment))
        print(f"Shutting down environment {task_name}...")
        try:
            ray.get(environment.shutdown.remote(), timeout=10)
        except Exception as shutdown_error:
            print(f"Environment {task_name} graceful shutdown failed: {shutdown_error}")
            try:
                ray.kill(environment)
            except Exception as kill_error:
                print(f"Environment {task_name} kill failed: {kill_error}")
