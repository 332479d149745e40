"""The ``swe_env`` agent loop: reset -> generate -> parse tool calls -> step -> ... -> close.

``response_mask`` is 1 on the model's tokens and 0 on observation tokens. ``reward_score`` is set on
every path (0.0 on errors, with the error in ``extra_fields`` as strings), so verl's reward function
is not needed. Tokenisation runs in the default executor: all samples of a worker share one event
loop, which must never block.
"""
from __future__ import annotations

import asyncio
import logging
import time
import uuid
from typing import Any, Dict, List, Optional, Sequence

from ..client import AsyncSweEnvClient
from ..env import to_tool_call
from ._compat import AgentLoopBase, AgentLoopOutput, register

logger = logging.getLogger(__name__)

# One client per worker process: channels are reused across samples (and created per event loop).
_CLIENTS: Dict[tuple, AsyncSweEnvClient] = {}


def _client(addresses: Sequence[str]) -> AsyncSweEnvClient:
    key = tuple(addresses)
    if key not in _CLIENTS:
        _CLIENTS[key] = AsyncSweEnvClient(list(addresses))
    return _CLIENTS[key]


def _cfg(obj: Any, path: str, default: Any) -> Any:
    for part in path.split("."):
        if obj is None:
            return default
        obj = obj.get(part) if isinstance(obj, dict) else getattr(obj, part, None)
    return default if obj is None else obj


@register("swe_env")
class SweEnvAgentLoop(AgentLoopBase):
    """Registered as ``swe_env``; select it with the dataset column ``agent_name: swe_env``.

    Keyword arguments (from the agent-loop YAML, next to ``_target_``): ``env_addr`` (one address
    or a comma-separated list), ``max_turns``, ``grade_on_budget`` (grade the repository when the
    turn or token budget runs out, instead of reward 0), ``episode_options``.
    """

    def __init__(self, *args: Any, env_addr: Any = "127.0.0.1:50051", max_turns: int = 50, grade_on_budget: bool = True, episode_options: Optional[Dict[str, Any]] = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.addresses: List[str] = [a.strip() for a in env_addr.split(",")] if isinstance(env_addr, str) else list(env_addr)
        self.max_turns = int(max_turns)
        self.grade_on_budget = bool(grade_on_budget)
        self.episode_options = dict(episode_options or {})
        self.response_length = int(_cfg(getattr(self, "config", None), "actor_rollout_ref.rollout.response_length", 16384))

    async def _tokenize_messages(self, messages: List[Dict[str, Any]], *, tools: Optional[List[Dict[str, Any]]] = None, add_generation_prompt: bool = True) -> List[int]:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            None, lambda: list(self.tokenizer.apply_chat_template(messages, tools=tools, add_generation_prompt=add_generation_prompt, tokenize=True))
        )

    async def _observation_ids(self, content: str) -> List[int]:
        """Tokens of a tool message and the next assistant header, without the template's preamble."""
        base = await self._tokenize_messages([{"role": "user", "content": ""}], add_generation_prompt=False)
        full = await self._tokenize_messages([{"role": "user", "content": ""}, {"role": "tool", "content": content}], add_generation_prompt=True)
        return full[len(base) :]

    async def _decode(self, ids: List[int]) -> str:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, lambda: self.tokenizer.decode(ids, skip_special_tokens=True))

    async def run(self, sampling_params: Dict[str, Any], **kwargs: Any) -> AgentLoopOutput:
        extra_info = kwargs.get("extra_info") or {}
        task_id = extra_info.get("task_id") or kwargs.get("task_id")
        group_id = str(kwargs.get("uid") or extra_info.get("group_id") or "")
        client = _client(self.addresses)
        prompt_ids: List[int] = []
        response_ids: List[int] = []
        response_mask: List[int] = []
        logprobs: List[float] = []
        extra: Dict[str, Any] = {"task_id": str(task_id)}
        # verl's AgentLoopMetrics fields: seconds spent generating and in tool calls.
        metrics: Dict[str, Any] = {"generate_sequences": 0.0, "tool_calls": 0.0}
        reward = 0.0
        turns = 0
        episode_id: Optional[str] = None
        try:
            if not task_id:
                raise ValueError("the dataset row has no extra_info.task_id")
            reset = await client.reset(task_id, group_id=group_id, options=self.episode_options or None)
            episode_id = reset.episode_id
            extra["episode_id"] = episode_id
            messages = [{"role": "user", "content": reset.observation}]
            prompt_ids = await self._tokenize_messages(messages, tools=reset.tools)
            request_id = uuid.uuid4().hex
            step_index = 0
            ended = False
            while turns < self.max_turns and len(response_ids) < self.response_length:
                started = time.perf_counter()
                output = await self.server_manager.generate(request_id=request_id, prompt_ids=prompt_ids + response_ids, sampling_params=sampling_params)
                metrics["generate_sequences"] += time.perf_counter() - started
                model_ids = list(output.token_ids)
                response_ids += model_ids
                response_mask += [1] * len(model_ids)
                logprobs += list(output.log_probs) if getattr(output, "log_probs", None) else [0.0] * len(model_ids)
                turns += 1
                if len(response_ids) >= self.response_length:
                    break
                call, parse_info = to_tool_call(await self._decode(model_ids))
                started = time.perf_counter()
                result = await client.step(episode_id, step_index, call.name, call.arguments)
                metrics["tool_calls"] += time.perf_counter() - started
                step_index += 1
                if result.infra_error:
                    extra["infra_error"] = result.observation
                    ended = True
                    break
                if result.terminated or result.truncated:
                    reward = result.reward
                    extra["status"] = result.status
                    if result.report is not None:
                        extra["resolved"] = str(result.report.get("resolved", False))
                    ended = True
                    break
                obs_ids = await self._observation_ids(result.observation)
                response_ids += obs_ids
                response_mask += [0] * len(obs_ids)
                logprobs += [0.0] * len(obs_ids)
            if not ended:
                extra["status"] = "BUDGET"
                if self.grade_on_budget:
                    final = await client.step(episode_id, step_index, "submit_solution", {})
                    if final.infra_error:
                        extra["infra_error"] = final.observation
                    else:
                        reward = final.reward
        except Exception as error:  # every path gets a reward; SweEnvError carries the server's reason
            logger.warning("swe_env episode failed: %s", error)
            extra["error"] = f"{type(error).__name__}: {error}"
            reward = 0.0
        finally:
            if episode_id is not None:
                try:
                    await client.close(episode_id)
                except Exception as error:  # the server's idle TTL reclaims it anyway
                    extra["close_error"] = str(error)
        n = self.response_length
        output = AgentLoopOutput(
            prompt_ids=prompt_ids,
            response_ids=response_ids[:n],
            response_mask=response_mask[:n],
            response_logprobs=logprobs[:n] if logprobs else None,
            reward_score=float(reward),
            num_turns=turns + 1,
            metrics=metrics,
        )
        output.extra_fields.update({k: str(v) for k, v in extra.items()})
        return output
