"""A ``bash`` / ``submit_solution`` BaseTool pair for verl's own ToolAgentLoop, and
``SweEnvToolAgentLoop``, verl's ToolAgentLoop with the end-of-trajectory step it lacks.

verl's ToolAgentLoop calls create -> execute -> release on every tool call, so a tool instance
cannot hold an episode: episodes are keyed by the trajectory's ``agent_data.request_id`` instead.
An episode starts on its trajectory's first call (task from ``create_kwargs.task_id``) and ends on
``submit_solution`` (whose reward is the tool reward; ``compute_score`` reads it back). The reward
function is ``reward.custom_reward_function.path=pkg://swe_env.verl.tools``, ``name=compute_score``.

An environment failure (Reset refused, server unreachable, an ``INFRA_ERROR`` step, a row without a
task) ends the trajectory's episode and flags the sample in ``agent_data.extra_fields``
(``swe_env_masked`` True, ``swe_env_error``): a tool cannot do more, because verl's ToolAgentLoop
builds the response mask itself after the tool returns and has no end-of-trajectory hook. Rows
with ``agent_name: swe_env_tool_agent`` run ``SweEnvToolAgentLoop`` (registered when verl loads
these tools), which is verl's ToolAgentLoop plus what a tool cannot do: a flagged sample gets an
all-zero ``response_mask`` (none of its tokens reach the loss), an LLM server that raises masks its
sample instead of failing verl's whole batch, and the trajectory's episode is closed when the
trajectory ends, however it ends. With plain ``tool_agent`` rows a flagged sample trains as a 0, an
LLM error fails the batch, and an episode that never submitted waits for the server's idle timeout.
"""
from __future__ import annotations

import asyncio
import logging
import uuid
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

from ..client.async_client import AsyncSweEnvClient
from .tokens import filler_token
from verl.experimental.agent_loop.agent_loop import AgentLoopOutput, register
from verl.experimental.agent_loop.tool_agent_loop import ToolAgentLoop
from verl.tools.base_tool import BaseTool
from verl.tools.schemas import ToolResponse

logger = logging.getLogger(__name__)

#: The keys ``SweEnvToolAgentLoop`` puts in every sample's ``extra_fields`` (verl concatenates its
#: workers' chunks by key), with their types.
TOOL_EXTRA_FIELDS = {"swe_env_masked": bool, "swe_env_error": str}


@dataclass
class _Trajectory:
    episode_id: str
    client: AsyncSweEnvClient
    step_index: int = 0
    done: bool = False
    closed: bool = False
    masked: bool = False
    error: str = ""


class _Episodes:
    """Trajectory -> episode, shared by the tools of one worker."""

    def __init__(self) -> None:
        self.by_request: Dict[str, _Trajectory] = {}
        self.locks: Dict[str, asyncio.Lock] = {}
        self.clients: Dict[str, AsyncSweEnvClient] = {}

    def client(self, address: str) -> AsyncSweEnvClient:
        if address not in self.clients:
            self.clients[address] = AsyncSweEnvClient([a.strip() for a in address.split(",")])
        return self.clients[address]

    def lock(self, request_id: str) -> asyncio.Lock:
        return self.locks.setdefault(request_id, asyncio.Lock())

    async def close(self, trajectory: _Trajectory) -> None:
        if trajectory.closed:
            return
        trajectory.closed = True
        try:
            # Shielded: a cancelled trajectory still closes its sandbox (Close waits for a Reset in flight).
            await asyncio.shield(trajectory.client.close(trajectory.episode_id))
        except Exception as error:  # never started, or already gone; else the server's idle timeout
            logger.debug("swe_env: closing %s: %s", trajectory.episode_id, error)

    async def end(self, request_id: str) -> Optional[_Trajectory]:
        """The trajectory is over: its episode is closed and forgotten."""
        trajectory = self.by_request.pop(request_id, None)
        self.locks.pop(request_id, None)
        if trajectory is not None:
            await self.close(trajectory)
        return trajectory


EPISODES = _Episodes()


def _request_id(kwargs: Dict[str, Any]) -> str:
    agent_data = kwargs.get("agent_data")
    request_id = getattr(agent_data, "request_id", None) or kwargs.get("request_id")
    if not request_id:
        raise ValueError("swe_env tools need agent_data.request_id (verl's ToolAgentLoop passes it)")
    return str(request_id)


def _flag(kwargs: Dict[str, Any], error: str) -> None:
    """Marks the sample as the environment's failure where verl keeps per-sample data."""
    extra = getattr(kwargs.get("agent_data"), "extra_fields", None)
    if isinstance(extra, dict):
        extra["swe_env_masked"] = True
        extra["swe_env_error"] = error[-2000:]


class _SweEnvTool(BaseTool):
    tool_name = ""

    def __init__(self, config: dict, tool_schema: Any) -> None:
        super().__init__(config, tool_schema)
        self.address = str(config.get("env_addr", "127.0.0.1:50051"))
        self.episode_options = dict(config.get("episode_options") or {})
        self._task_by_instance: Dict[str, str] = {}

    async def create(self, instance_id: Optional[str] = None, **kwargs: Any) -> Tuple[str, Any]:
        instance_id = instance_id or str(uuid.uuid4())
        create_kwargs = kwargs.get("create_kwargs") or kwargs
        task_id = create_kwargs.get("task_id")
        if task_id:
            self._task_by_instance[instance_id] = str(task_id)
        return instance_id, ToolResponse()

    async def _trajectory(self, instance_id: str, request_id: str, kwargs: Dict[str, Any]) -> _Trajectory:
        trajectory = EPISODES.by_request.get(request_id)
        if trajectory is None:
            # Recorded before Reset (the episode id is the request id): a trajectory that ends while
            # the Reset is in flight, or after it failed, still closes whatever the server started.
            trajectory = EPISODES.by_request[request_id] = _Trajectory(request_id, EPISODES.client(self.address))
            task_id = self._task_by_instance.get(instance_id) or (kwargs.get("create_kwargs") or {}).get("task_id")
            try:
                if not task_id:
                    raise ValueError("no task_id: put it in tools_kwargs.<tool>.create_kwargs.task_id")
                await trajectory.client.reset(str(task_id), episode_id=request_id, options=self.episode_options or None)
            except Exception as error:
                await self._fail(trajectory, f"reset failed: {type(error).__name__}: {error}", kwargs)
        return trajectory

    async def _fail(self, trajectory: _Trajectory, error: str, kwargs: Dict[str, Any]) -> None:
        trajectory.done, trajectory.masked, trajectory.error = True, True, error
        _flag(kwargs, error)
        await EPISODES.close(trajectory)

    async def _step(self, instance_id: str, arguments: Dict[str, Any], kwargs: Dict[str, Any]) -> Tuple[Any, float, Dict[str, Any]]:
        try:
            request_id = _request_id(kwargs)
        except ValueError as error:
            _flag(kwargs, str(error))
            return ToolResponse(text=f"[swe-env error] {error}"), 0.0, {"error": str(error)}
        async with EPISODES.lock(request_id):
            trajectory = await self._trajectory(instance_id, request_id, kwargs)
            if trajectory.masked:
                _flag(kwargs, trajectory.error)
                return ToolResponse(text=f"[swe-env error] {trajectory.error}"), 0.0, {"error": trajectory.error}
            if trajectory.done:
                return ToolResponse(text="The episode has ended; no more tool calls are accepted."), 0.0, {"status": "ENDED"}
            try:
                result = await trajectory.client.step(trajectory.episode_id, trajectory.step_index, self.tool_name, arguments)
            except Exception as error:  # the environment failed, not the model: mask and end
                await self._fail(trajectory, f"{type(error).__name__}: {error}", kwargs)
                return ToolResponse(text=f"[swe-env error] {trajectory.error}"), 0.0, {"error": trajectory.error}
            trajectory.step_index += 1
            if result.infra_error:
                await self._fail(trajectory, f"INFRA_ERROR: {result.observation[-2000:]}", kwargs)
                return ToolResponse(text=result.observation), 0.0, {"status": result.status, "error": trajectory.error}
            if result.terminated or result.truncated:
                trajectory.done = True
                await EPISODES.close(trajectory)
            metrics = {"status": result.status, "exit_code": result.exit_code}
            if result.report is not None:
                metrics["resolved"] = bool(result.report.get("resolved"))
            return ToolResponse(text=result.observation), float(result.reward), metrics

    async def calc_reward(self, instance_id: str, **kwargs: Any) -> float:
        return 0.0

    async def release(self, instance_id: str, **kwargs: Any) -> None:
        # Per call, not per trajectory: the episode lives on until submit or the trajectory's end.
        self._task_by_instance.pop(instance_id, None)


class SweBashTool(_SweEnvTool):
    tool_name = "bash"

    async def execute(self, instance_id: str, parameters: Dict[str, Any], **kwargs: Any) -> Tuple[Any, float, Dict[str, Any]]:
        return await self._step(instance_id, {"command": parameters.get("command", "")} if "command" in parameters else dict(parameters), kwargs)


class SweSubmitTool(_SweEnvTool):
    tool_name = "submit_solution"

    async def execute(self, instance_id: str, parameters: Dict[str, Any], **kwargs: Any) -> Tuple[Any, float, Dict[str, Any]]:
        return await self._step(instance_id, {}, kwargs)


class SweEnvToolAgentLoop(ToolAgentLoop):
    """verl's ToolAgentLoop (everything it does is unchanged) with, around its ``run``: the
    trajectory's episode closed when the trajectory ends (submitted, out of turns or tokens, a
    final answer without a tool call, an LLM error, cancelled); a sample the tools flagged as the
    environment's failure masked (``response_mask`` all zeros); and an LLM server that raises
    turning into a masked sample (the tokens so far, none trained on) instead of an exception
    that fails verl's whole batch. Select it with ``agent_name: swe_env_tool_agent``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._agent_data: Any = None

    async def _handle_pending_state(self, agent_data: Any, sampling_params: Dict[str, Any]) -> Any:
        self._agent_data = agent_data  # one loop object per sample (verl instantiates one per run)
        return await super()._handle_pending_state(agent_data, sampling_params)

    async def run(self, sampling_params: Dict[str, Any], **kwargs: Any) -> AgentLoopOutput:
        try:
            output = await super().run(sampling_params, **kwargs)
        except Exception as error:
            logger.warning("swe_env: the trajectory failed (%s: %s); its sample is masked", type(error).__name__, error)
            output = await self._failed_output(sampling_params, kwargs, f"llm_error: {type(error).__name__}: {error}")
        finally:
            if self._agent_data is not None:
                await EPISODES.end(str(self._agent_data.request_id))
        extra = output.extra_fields
        for key, kind in TOOL_EXTRA_FIELDS.items():
            extra[key] = kind(extra.get(key, kind()))
        if extra["swe_env_masked"]:
            output.response_mask = [0] * len(output.response_mask)
        return output

    async def _failed_output(self, sampling_params: Dict[str, Any], kwargs: Dict[str, Any], error: str) -> AgentLoopOutput:
        agent_data = self._agent_data
        tokens: List[int] = list(getattr(agent_data, "prompt_ids", None) or [])
        n = len(getattr(agent_data, "response_mask", None) or [])
        if tokens and n < len(tokens):
            prompt_ids, response_ids = tokens[: len(tokens) - n], tokens[len(tokens) - n :]
        else:  # failed before any prompt was built: the dataset's own prompt
            prompt_ids, response_ids = tokens or await self._fallback_prompt(kwargs), []
        if not response_ids:
            response_ids = [self._filler_token()]
        response_ids = response_ids[: self.response_length]
        logprobs = None
        if sampling_params.get("logprobs"):
            kept = list(getattr(agent_data, "response_logprobs", None) or [])
            logprobs = (kept + [0.0] * len(response_ids))[: len(response_ids)]
        extra: Dict[str, Any] = dict(getattr(agent_data, "extra_fields", None) or {})
        extra.update(swe_env_masked=True, swe_env_error=error[-2000:])
        extra.update(turn_scores=list(getattr(agent_data, "turn_scores", []) or []), tool_rewards=list(getattr(agent_data, "tool_rewards", []) or []))
        user_turns, assistant_turns = getattr(agent_data, "user_turns", 0), getattr(agent_data, "assistant_turns", 0)
        return AgentLoopOutput(
            prompt_ids=prompt_ids,
            response_ids=response_ids,
            response_mask=[0] * len(response_ids),
            response_logprobs=logprobs,
            num_turns=user_turns + assistant_turns + 1,
            metrics=dict(getattr(agent_data, "metrics", None) or {}),
            extra_fields=extra,
        )

    async def _fallback_prompt(self, kwargs: Dict[str, Any]) -> List[int]:
        raw = kwargs.get("raw_prompt")
        messages = [dict(m) for m in raw] if raw is not None and len(raw) else [{"role": "user", "content": ""}]
        try:
            ids = await self.ct_build_initial_tokens(messages)
            return list(ids)[-self.prompt_length :] or [self._filler_token()]
        except Exception:  # the row's own prompt does not render: one filler token still pads
            return [self._filler_token()]

    def _filler_token(self) -> int:
        return filler_token(self.tokenizer)


# verl's AgentLoopWorker loads the tools (importing this module) before it reads the agent names.
register("swe_env_tool_agent")(SweEnvToolAgentLoop)


def compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: Optional[Dict[str, Any]] = None, **kwargs: Any) -> float:
    """verl reward function for the tool pair: the submit tool's reward (0 when never submitted)."""
    rewards = (extra_info or {}).get("tool_rewards") or []
    return float(max(rewards)) if rewards else 0.0
