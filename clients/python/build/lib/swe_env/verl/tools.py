"""A ``bash`` / ``submit_solution`` BaseTool pair for verl's own ToolAgentLoop.

verl's ToolAgentLoop calls create -> execute -> release on every tool call, so a tool instance
cannot hold an episode: episodes are keyed by the trajectory's ``agent_data.request_id`` instead.
An episode starts on its trajectory's first call (task from ``create_kwargs.task_id``), ends on
``submit_solution`` (whose reward is the tool reward; ``compute_score`` reads it back), and one that
never submits is reclaimed by the server's idle TTL (verl's ToolAgentLoop has no end-of-trajectory
hook). Rows need ``agent_name: tool_agent``; the reward function is
``reward.custom_reward_function.path=pkg://swe_env.verl.tools``, ``name=compute_score``.
"""
from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple

from ..client import AsyncSweEnvClient
from verl.tools.base_tool import BaseTool
from verl.tools.schemas import ToolResponse


@dataclass
class _Trajectory:
    episode_id: str
    step_index: int = 0
    done: bool = False


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


EPISODES = _Episodes()


def _request_id(kwargs: Dict[str, Any]) -> str:
    agent_data = kwargs.get("agent_data")
    request_id = getattr(agent_data, "request_id", None) or kwargs.get("request_id")
    if not request_id:
        raise ValueError("swe_env tools need agent_data.request_id (verl's ToolAgentLoop passes it)")
    return str(request_id)


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
            task_id = self._task_by_instance.get(instance_id) or (kwargs.get("create_kwargs") or {}).get("task_id")
            if not task_id:
                raise ValueError("no task_id: put it in tools_kwargs.<tool>.create_kwargs.task_id")
            reset = await EPISODES.client(self.address).reset(task_id, episode_id=request_id, options=self.episode_options or None)
            trajectory = EPISODES.by_request[request_id] = _Trajectory(reset.episode_id)
        return trajectory

    async def _step(self, instance_id: str, arguments: Dict[str, Any], kwargs: Dict[str, Any]) -> Tuple[Any, float, Dict[str, Any]]:
        try:
            request_id = _request_id(kwargs)
            async with EPISODES.lock(request_id):
                trajectory = await self._trajectory(instance_id, request_id, kwargs)
                if trajectory.done:
                    return ToolResponse(text="The episode has ended; no more tool calls are accepted."), 0.0, {"status": "ENDED"}
                client = EPISODES.client(self.address)
                result = await client.step(trajectory.episode_id, trajectory.step_index, self.tool_name, arguments)
                trajectory.step_index += 1
                if result.terminated or result.truncated:
                    trajectory.done = True
                    await client.close(trajectory.episode_id)
                metrics = {"status": result.status, "exit_code": result.exit_code}
                if result.report is not None:
                    metrics["resolved"] = bool(result.report.get("resolved"))
                return ToolResponse(text=result.observation), float(result.reward), metrics
        except Exception as error:  # verl turns tool errors into text with reward 0; say what failed
            return ToolResponse(text=f"[swe-env error] {type(error).__name__}: {error}"), 0.0, {"error": str(error)}

    async def calc_reward(self, instance_id: str, **kwargs: Any) -> float:
        return 0.0

    async def release(self, instance_id: str, **kwargs: Any) -> None:
        # Per call, not per trajectory: the episode lives on until submit or the server's idle TTL.
        self._task_by_instance.pop(instance_id, None)


class SweBashTool(_SweEnvTool):
    tool_name = "bash"

    async def execute(self, instance_id: str, parameters: Dict[str, Any], **kwargs: Any) -> Tuple[Any, float, Dict[str, Any]]:
        return await self._step(instance_id, {"command": parameters.get("command", "")} if "command" in parameters else dict(parameters), kwargs)


class SweSubmitTool(_SweEnvTool):
    tool_name = "submit_solution"

    async def execute(self, instance_id: str, parameters: Dict[str, Any], **kwargs: Any) -> Tuple[Any, float, Dict[str, Any]]:
        return await self._step(instance_id, {}, kwargs)


def compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: Optional[Dict[str, Any]] = None, **kwargs: Any) -> float:
    """verl reward function for the tool pair: the submit tool's reward (0 when never submitted)."""
    rewards = (extra_info or {}).get("tool_rewards") or []
    return float(max(rewards)) if rewards else 0.0
