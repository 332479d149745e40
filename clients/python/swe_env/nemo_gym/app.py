"""A NeMo Gym resources server whose environment is a swe-env episode.

One swe-env episode per NeMo Gym session (the session cookie): ``/reset`` starts it (task from the
dataset row's ``task_id``), ``/step`` runs the model's function calls (``bash`` /
``submit_solution``; a hermes ``<tool_call>`` or a fenced bash block in plain text works too) and
returns their outputs as ``tool_outputs``, ``/close`` ends it. The reward is swe-env's: 1 only when
every FAIL_TO_PASS and PASS_TO_PASS test passes. An environment failure ends the episode with
``info["mask_sample"] = True`` (keep it out of the loss), never with a plain 0.

Run it as NeMo Gym runs a server: under ``ng_run`` with ``configs/swe_env.yaml`` and the server
directories ``python -m swe_env.nemo_gym.layout`` writes (it pairs the server with
``swe_env.nemo_gym.agent.SweEnvAgent``, NeMo Gym's ``GymnasiumAgent`` with its failure-row contract).
"""
from __future__ import annotations

import json
import uuid
from typing import Any, Dict, List, Optional, Tuple

from fastapi import FastAPI, HTTPException, Request
from pydantic import Field

from nemo_gym.base_resources_server import BaseResourcesServerConfig
from nemo_gym.openai_utils import NeMoGymResponse
from nemo_gym.server_utils import SESSION_ID_KEY
from resources_servers.gymnasium import GymnasiumServer, extract_text

from ..client.async_client import AsyncSweEnvClient
from ..client.env import to_tool_call
from ..core.errors import SweEnvError
from ..core.parsing import ToolCall
from ..core.results import StepResult
from ..core.text import cut_middle


class SweEnvResourcesServerConfig(BaseResourcesServerConfig):
    env_addr: str = "127.0.0.1:50051"  # one address or several, comma-separated
    episode_options: Dict[str, Any] = Field(default_factory=dict)
    max_observation_chars: int = 16384


class _Episode:
    def __init__(self, episode_id: str, task_id: str) -> None:
        self.episode_id = episode_id
        self.task_id = task_id
        self.step_index = 0
        self.done = False


class SweEnvResourcesServer(GymnasiumServer):
    config: SweEnvResourcesServerConfig
    ray_enabled = False

    def model_post_init(self, context: Any) -> None:
        super().model_post_init(context)
        addresses = [a.strip() for a in self.config.env_addr.split(",") if a.strip()]
        self._client = AsyncSweEnvClient(addresses)

    def setup_webserver(self) -> FastAPI:
        app = super().setup_webserver()
        app.post("/close")(self._close_endpoint)
        return app

    # --- the Gymnasium API ----------------------------------------------------------------------

    async def reset(self, metadata: dict, session_id: Optional[str] = None) -> Tuple[Optional[str], dict]:
        await self.close_session(session_id)  # a reset on a live session starts over
        task_id = str(metadata.get("task_id") or "")
        if not task_id:
            raise ValueError("the dataset row has no task_id")
        episode = _Episode(f"gym-{uuid.uuid4().hex}", task_id)
        # Recorded before Reset: a close racing the reset still finds (and closes) the episode.
        self.session_state[session_id] = episode
        try:
            await self._client.reset(task_id, episode_id=episode.episode_id, group_id=str(metadata.get("group_id") or ""), options=self.config.episode_options or None)
        except Exception as error:
            # The agent never calls /close after a failed /reset: whatever the server started (a
            # Reset that timed out here may have) is closed now, then the failure is the agent's
            # to report (swe_env.nemo_gym.agent answers it with a failures-sidecar row).
            await self.close_session(session_id)
            raise HTTPException(status_code=500, detail=f"swe-env Reset failed: {type(error).__name__}: {error}") from error
        # The prompt is already in the row's input (swe_env.nemo_gym.dataset): no observation here.
        return None, {"supports_explicit_close": True, "episode_id": episode.episode_id}

    async def step(self, action: NeMoGymResponse, metadata: dict, session_id: Optional[str] = None) -> Tuple[Optional[str], float, bool, bool, dict]:
        episode: Optional[_Episode] = self.session_state.get(session_id)
        if episode is None or episode.done:
            return "No episode is running: reset first.", 0.0, True, False, {"mask_sample": True, "error": "no episode"}
        calls = _function_calls(action)
        tool_outputs: List[Dict[str, str]] = []
        observation: Optional[str] = None
        said: Optional[Dict[str, str]] = {"content": extract_text(action)}  # the model's text, for the episode's trajectory
        for call_id, call in calls or [("", _text_call(action))]:
            try:
                result = await self._client.step(episode.episode_id, episode.step_index, call.name, call.arguments, assistant=said)
                said = None  # one message, recorded with its first call
            except SweEnvError as error:
                episode.done = True
                return None, 0.0, True, False, {"mask_sample": True, "error": f"{type(error).__name__}: {error}", "tool_outputs": tool_outputs}
            episode.step_index += 1
            text, _ = cut_middle(result.observation, self.config.max_observation_chars)
            if call_id:
                tool_outputs.append({"call_id": call_id, "output": text})
            else:
                observation = text  # a call written in plain text gets its answer as a user message
            if result.terminated or result.truncated or result.infra_error:
                episode.done = True
                return observation, float(result.reward), result.terminated, result.truncated, _final_info(result, tool_outputs)
        return observation, 0.0, False, False, {"tool_outputs": tool_outputs, "step_index": episode.step_index}

    async def close_session(self, session_id: Optional[str]) -> None:
        episode: Optional[_Episode] = self.session_state.get(session_id)
        if episode is not None:
            try:
                await self._client.close(episode.episode_id)
            except Exception:
                pass  # never started, or already gone: the server's idle timeout covers the rest
        self._cleanup_session(session_id)

    async def _close_endpoint(self, request: Request) -> dict:
        await self.close_session(request.session.get(SESSION_ID_KEY))
        return {"closed": True}


def _function_calls(action: NeMoGymResponse) -> List[Tuple[str, ToolCall]]:
    calls = []
    for item in action.output:
        if getattr(item, "type", None) == "function_call":
            try:
                arguments = json.loads(item.arguments or "{}")
            except json.JSONDecodeError:
                arguments = item.arguments  # the server answers INVALID_ACTION with what is accepted
            calls.append((item.call_id, ToolCall(name=item.name, arguments=arguments)))
    return calls


def _text_call(action: NeMoGymResponse) -> ToolCall:
    call, _ = to_tool_call(extract_text(action))
    return call


def _final_info(result: StepResult, tool_outputs: List[Dict[str, str]]) -> dict:
    report = result.report or {}
    return {
        "tool_outputs": tool_outputs,
        "status": result.status,
        "resolved": bool(report.get("resolved", False)),
        "mask_sample": result.infra_error,
        "report": report,
    }


if __name__ == "__main__":
    SweEnvResourcesServer.run_webserver()
