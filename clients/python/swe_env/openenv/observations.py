"""What a session answers. OpenEnv's observation has ``done``, ``reward`` and ``metadata`` and no
mask or truncation field, so every observation of this server (reset, tools/list, tool calls)
carries them in ``metadata``:

* ``infra_error`` (and ``mask``, the same bool): the environment failed (a step ``INFRA_ERROR``, or
  the swe-env server did not answer): mask the sample, never train it as 0. Such an observation
  has ``reward`` None (no reward, rather than a false 0) and ``done`` True.
* ``truncated``: the episode hit its step or time budget (``status`` ``TRUNCATED_STEPS`` /
  ``TRUNCATED_TIME``); the model's own doing, its reward stands. ``terminated`` is the episode's
  own end (a submit). ``done`` = terminated or truncated or infra_error.
* ``status`` (swe-env's step status: ``OK``, ``COMMAND_TIMEOUT``, ``INVALID_ACTION``, ...),
  ``exit_code``, ``step_index``, ``episode_id``, ``task_id``, the step's ``info`` and, after a submit,
  the grading ``report``.
"""
from __future__ import annotations

from typing import Any, Dict

from openenv.core.env_server.mcp_types import CallToolObservation
from openenv.core.env_server.types import Observation
from pydantic import Field

from ..core.results import StepResult


class SweEnvResetObservation(Observation):
    """The first observation of an episode: the task's prompt. (No ``tools`` field: OpenEnv's MCP
    client reads any observation with one as a tool listing; ask ``tools/list`` for them.)"""

    prompt: str = Field(description="The issue and instructions: the model's first user message")
    task_id: str = Field(description="The swe-env task of this episode")
    episode_id: str = Field(description="The swe-env episode this session holds")


def flags(*, status: str = "OK", infra_error: bool = False, truncated: bool = False, terminated: bool = False) -> Dict[str, Any]:
    """The fields every observation's metadata has."""
    return {"status": status, "infra_error": infra_error, "mask": infra_error, "truncated": truncated, "terminated": terminated}


def tool_observation(tool_name: str, result: StepResult, *, episode_id: str, task_id: str) -> CallToolObservation:
    infra = result.infra_error
    metadata: Dict[str, Any] = {
        **flags(status=result.status, infra_error=infra, truncated=result.truncated, terminated=result.terminated),
        "exit_code": result.exit_code,
        "step_index": result.step_index,
        "episode_id": episode_id,
        "task_id": task_id,
        "info": result.info,
    }
    if result.report is not None:
        metadata["report"] = result.report
    return CallToolObservation(
        tool_name=tool_name,
        result=result.observation,
        done=result.terminated or result.truncated or infra,
        reward=None if infra else result.reward,
        metadata=metadata,
    )


def infra_observation(tool_name: str, message: str, *, episode_id: str, task_id: str, step_index: int) -> CallToolObservation:
    """A tool call the swe-env server could not answer (unreachable, episode lost): masked, ended."""
    return CallToolObservation(
        tool_name=tool_name,
        result=f"[swe-env: infrastructure error, this sample must be masked] {message}",
        done=True,
        reward=None,
        metadata={**flags(status="INFRA_ERROR", infra_error=True), "episode_id": episode_id, "task_id": task_id, "step_index": step_index, "error": message},
    )
