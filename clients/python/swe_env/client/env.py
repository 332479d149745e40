"""Gymnasium-shaped environments over swe-env episodes."""
from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Tuple, Union

from ..core.parsing import ToolCall, parse_tool_call
from ..core.results import ResetResult, StepResult
from .async_client import AsyncSweEnvClient
from .sync_client import SweEnvClient

#: An action: a ToolCall, a mapping {"name", "arguments"[, "call_id"]}, or raw model text.
Action = Union[ToolCall, Mapping[str, Any], str]


def to_tool_call(action: Action) -> Tuple[ToolCall, Dict[str, Any]]:
    """The tool call an action stands for. Text without a tool call becomes a call with no name,
    which the server answers with an INVALID_ACTION observation (a step the model can learn from)."""
    if isinstance(action, ToolCall):
        return action, {}
    if isinstance(action, str):
        call = parse_tool_call(action)
        if call is None:
            return ToolCall(name="", arguments={}), {"parse_error": "no tool call found in the model output"}
        return call, {}
    return ToolCall(name=str(action.get("name", "")), arguments=action.get("arguments", {}) or {}, call_id=str(action.get("call_id", ""))), {}


def _step_tuple(result: StepResult, extra: Dict[str, Any]) -> Tuple[str, float, bool, bool, Dict[str, Any]]:
    info: Dict[str, Any] = {
        **result.info,
        **extra,
        "status": result.status,
        "exit_code": result.exit_code,
        "step_index": result.step_index,
        "infra_error": result.infra_error,
    }
    if result.report is not None:
        info["report"] = result.report
    return result.observation, result.reward, result.terminated, result.truncated, info


class AsyncSweEnv:
    """One episode at a time on one task; ``await reset()``, ``await step(action)``, ``await close()``."""

    def __init__(
        self,
        task_id: str,
        client: Union[AsyncSweEnvClient, str, None] = None,
        *,
        group_id: str = "",
        options: Optional[Dict[str, Any]] = None,
    ) -> None:
        self.task_id = task_id
        self.client = client if isinstance(client, AsyncSweEnvClient) else AsyncSweEnvClient(client or "127.0.0.1:50051")
        self.group_id = group_id
        self.options = options
        self.episode: Optional[ResetResult] = None
        self.step_index = 0
        self.done = False

    async def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> Tuple[str, Dict[str, Any]]:
        if self.episode is not None:
            await self.close()
        self.episode = await self.client.reset(self.task_id, seed=seed or 0, group_id=self.group_id, options=options or self.options)
        self.step_index = 0
        self.done = False
        info = {**self.episode.info, "episode_id": self.episode.episode_id, "tools": self.episode.tools, "options": self.episode.options}
        return self.episode.observation, info

    async def step(self, action: Action) -> Tuple[str, float, bool, bool, Dict[str, Any]]:
        if self.episode is None:
            raise RuntimeError("call reset() before step()")
        call, extra = to_tool_call(action)
        # Text the model wrote is its message: recorded with the step in the episode's trajectory.
        assistant = {"content": action} if isinstance(action, str) else None
        result = await self.client.step(self.episode.episode_id, self.step_index, call.name, call.arguments, call_id=call.call_id, assistant=assistant)
        self.step_index += 1
        self.done = result.terminated or result.truncated
        return _step_tuple(result, extra)

    async def close(self) -> Optional[Dict[str, Any]]:
        if self.episode is None:
            return None
        episode_id, self.episode = self.episode.episode_id, None
        return await self.client.close(episode_id)

    async def __aenter__(self) -> "AsyncSweEnv":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class SweEnv:
    """Synchronous Gym-style env: ``reset(seed, options) -> (obs, info)``,
    ``step(action) -> (obs, reward, terminated, truncated, info)``, ``close()``."""

    def __init__(
        self,
        task_id: str,
        client: Union[SweEnvClient, str, None] = None,
        *,
        group_id: str = "",
        options: Optional[Dict[str, Any]] = None,
    ) -> None:
        self._owns_client = not isinstance(client, SweEnvClient)
        self.client = client if isinstance(client, SweEnvClient) else SweEnvClient(client or "127.0.0.1:50051")
        self._env = AsyncSweEnv(task_id, self.client.aio, group_id=group_id, options=options)

    @property
    def episode_id(self) -> Optional[str]:
        return self._env.episode.episode_id if self._env.episode else None

    def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> Tuple[str, Dict[str, Any]]:
        return self.client._run(self._env.reset, seed=seed, options=options)

    def step(self, action: Action) -> Tuple[str, float, bool, bool, Dict[str, Any]]:
        return self.client._run(self._env.step, action)

    def close(self) -> Optional[Dict[str, Any]]:
        try:
            return self.client._run(self._env.close)
        finally:
            if self._owns_client:
                self.client.shutdown()

    def __enter__(self) -> "SweEnv":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["Action", "AsyncSweEnv", "SweEnv", "to_tool_call"]
