"""A NeMo Gym base resources server over swe-env episodes: the routes NeMo Gym's own agents
(``responses_api_agents.simple_agent``) and its verifiers bridge call, built on its
``SimpleResourcesServer`` (nemo-gym 0.7).

- ``/seed_session``: starts a swe-env episode (the row's ``task_id``) bound to the NeMo Gym session
  (the signed session cookie ``SessionMiddleware`` sets). A Reset the swe-env server refuses or
  cannot answer is an HTTP 503: the rollout never ran. NeMo Gym's agent then fails ``/run``, which
  ``ng_collect_rollouts +route_failures_to_sidecar=true`` records in its failures sidecar (never in
  the rollouts, never scored); without that flag the collection stops.
- one route per tool (``/bash``, ``/submit_solution``): one swe-env Step each; the answer is the
  observation as plain text, which the simple agent hands the model as the tool's output.
- ``/verify``: the graded reward (1 only when every FAIL_TO_PASS and PASS_TO_PASS test passes). A
  rollout that never submitted is graded as its working tree stands (``grade_unsubmitted``). An
  environment failure (an INFRA_ERROR step, a Step the server could not answer, a session lost to
  the idle reaper) is ``mask_sample=True`` with ``failure_kind``, never a plain 0.
- ``/close_session``: releases the session's episode (NeMo Gym's Environment Server calls it); its
  typed seed (``ResourcesSeedSessionRequest``) is served too, by NeMo Gym's session contract
  (``nemo_gym.testing.session_conformance``); its typed ``/verify`` body is not.

The episode is closed on the swe-env server when it ends and the session forgotten at ``/verify``;
sessions idle longer than ``idle_timeout_s`` are reaped (``swe_env.nemo_gym.sessions``).
"""
from __future__ import annotations

import uuid
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Awaitable, Callable, Dict, List, Union

from fastapi import Body, FastAPI, HTTPException, Request
from fastapi.responses import PlainTextResponse
from pydantic import ConfigDict, Field

from nemo_gym.base_resources_server import (
    BaseResourcesServerConfig,
    BaseSeedSessionRequest,
    BaseSeedSessionResponse,
    BaseVerifyRequest,
    BaseVerifyResponse,
    ResourcesCloseSessionRequest,
    ResourcesCloseSessionResponse,
    ResourcesSeedSessionRequest,
    ResourcesSeedSessionResponse,
    SimpleResourcesServer,
)
from nemo_gym.server_utils import SESSION_ID_KEY

from ..client.async_client import AsyncSweEnvClient
from ..core.text import cut_middle
from .sessions import Session, SessionRegistry

#: ``failure_kind`` of a masked sample: NeMo Gym's vocabulary names no "environment sandbox failed"
#: kind, and a server's own kinds are ``<server>:<kind>`` (``nemo_gym.failure_kinds``).
INFRA_ERROR_KIND = "swe_env:infra_error"
SESSION_LOST_KIND = "session_lost"  # nemo_gym.failure_kinds.SESSION_LOST
#: A tool route's body: the call's JSON arguments as the model wrote them (swe-env validates them
#: and answers a wrong one with INVALID_ACTION, which the model sees).
_TOOL_ARGUMENTS = Body(default_factory=dict)


class SweEnvSimpleResourcesServerConfig(BaseResourcesServerConfig):
    env_addr: str = "127.0.0.1:50051"  # one address or several, comma-separated
    episode_options: Dict[str, Any] = Field(default_factory=dict)
    max_observation_chars: int = 16384
    #: The tools served, one route each: swe-env's tool schemas (``GetTask``'s ``tools``).
    tools: List[str] = Field(default_factory=lambda: ["bash", "submit_solution"])
    #: At /verify, a rollout that never called submit_solution is graded as its working tree stands.
    grade_unsubmitted: bool = True
    #: A session with no call for this long is dropped and its episode closed.
    idle_timeout_s: float = 1800.0


class SweEnvSeedSessionRequest(BaseSeedSessionRequest):
    model_config = ConfigDict(extra="allow")  # the whole dataset row, as the simple agent posts it

    task_id: str
    group_id: str = ""


class SweEnvVerifyRequest(BaseVerifyRequest):
    model_config = ConfigDict(extra="allow")


class SweEnvVerifyResponse(BaseVerifyResponse):
    model_config = ConfigDict(extra="allow")

    resolved: bool = False
    status: str = ""
    episode_id: str = ""


class SweEnvSimpleResourcesServer(SimpleResourcesServer):
    config: SweEnvSimpleResourcesServerConfig
    ray_enabled = False

    def model_post_init(self, context: Any) -> None:
        super().model_post_init(context)
        addresses = [a.strip() for a in self.config.env_addr.split(",") if a.strip()]
        self._client = AsyncSweEnvClient(addresses)
        self._sessions = SessionRegistry(self._client.close, self.config.idle_timeout_s)

    @property
    def sessions(self) -> SessionRegistry:
        return self._sessions

    def setup_webserver(self) -> FastAPI:
        app = super().setup_webserver()
        for name in self.config.tools:
            app.post(f"/{name}", response_class=PlainTextResponse)(self._tool_route(name))
        _close_on_shutdown(app, self._sessions.close_all)
        return app

    # --- /seed_session ----------------------------------------------------------------------------

    async def seed_session(  # type: ignore[override]
        self, request: Request, body: Union[ResourcesSeedSessionRequest, SweEnvSeedSessionRequest]
    ) -> Union[ResourcesSeedSessionResponse, BaseSeedSessionResponse]:
        """An agent's seed (the dataset row; the session is the cookie's) or an Environment
        Server's typed seed (its ``resources_session_id`` becomes the cookie's session, the swe-env
        task is ``task_data.task_id``, else ``task_id.task_id``): idempotent for the same episode,
        refused (409) for a session already closed."""
        if isinstance(body, ResourcesSeedSessionRequest):
            session_id = body.resources_session_id
            if self._sessions.was_closed(session_id):
                raise HTTPException(status_code=409, detail=f"resources session {session_id} was closed")
            request.session[SESSION_ID_KEY] = session_id
            existing = self._sessions.get(session_id)
            if existing is None or existing.seed_key != body.episode_id.model_dump_json():
                task = str(body.task_data.get("task_id") or body.task_id.task_id)
                await self._start(session_id, task, str(body.task_data.get("group_id") or ""), body.episode_id.model_dump_json())
            return ResourcesSeedSessionResponse(resources_session_id=session_id)
        await self._start(str(request.session[SESSION_ID_KEY]), body.task_id, body.group_id, "")
        return BaseSeedSessionResponse()

    async def _start(self, session_id: str, task_id: str, group_id: str, seed_key: str) -> None:
        await self._sessions.drop(session_id)  # a seed on a live session starts over
        session = Session(session_id=session_id, episode_id=f"gym-{uuid.uuid4().hex}", task_id=task_id, seed_key=seed_key)
        # Registered before Reset: a close racing the Reset still finds (and closes) the episode.
        self._sessions.add(session)
        async with session.lock:
            try:
                await self._client.reset(task_id, episode_id=session.episode_id, group_id=group_id, options=self.config.episode_options or None)
            except Exception as error:
                # Whatever the server started (a Reset that timed out here may have) is closed now.
                await self._sessions.drop(session_id)
                raise HTTPException(status_code=503, detail=f"swe-env Reset of {task_id} failed: {type(error).__name__}: {error}") from error

    # --- the tools --------------------------------------------------------------------------------

    def _tool_route(self, name: str) -> Callable[..., Awaitable[str]]:
        async def tool(request: Request, body: Dict[str, Any] = _TOOL_ARGUMENTS) -> str:
            session = self._sessions.get(str(request.session.get(SESSION_ID_KEY, "")))
            if session is None:
                return "No swe-env episode is running for this session (never seeded, or already ended)."
            async with session.lock:
                session.touch()
                return await self._step(session, name, body)

        tool.__name__ = name
        return tool

    async def _step(self, session: Session, name: str, arguments: Dict[str, Any]) -> str:
        if session.done:
            return "The episode is over: no further tool calls are run."
        try:
            result = await self._client.step(session.episode_id, session.step_index, name, arguments)
        except Exception as error:  # the server could not run the step: the environment's failure
            session.failure = f"swe-env Step {name} failed: {type(error).__name__}: {error}"
            await self._sessions.release(session)
            return f"The environment failed; the episode is over. ({session.failure})"
        session.step_index += 1
        if result.terminated or result.truncated or result.infra_error:
            session.result = result
            await self._sessions.release(session)  # the sandbox goes now; the record waits for /verify
        text, _ = cut_middle(result.observation, self.config.max_observation_chars)
        return text

    # --- /verify ----------------------------------------------------------------------------------

    async def verify(self, request: Request, body: SweEnvVerifyRequest) -> SweEnvVerifyResponse:  # type: ignore[override]
        session_id = str(request.session.get(SESSION_ID_KEY, ""))
        session = self._sessions.get(session_id)
        if session is None:
            return _masked(body, SESSION_LOST_KIND, "no swe-env episode for this session: never seeded, reaped when idle, or verified already")
        try:
            async with session.lock:
                session.touch()
                if not session.done and self.config.grade_unsubmitted:
                    await self._step(session, "submit_solution", {})
                return _outcome(body, session)
        finally:
            await self._sessions.drop(session_id)

    # --- /close_session ---------------------------------------------------------------------------

    async def close_resources_session(self, request: Request, body: ResourcesCloseSessionRequest) -> ResourcesCloseSessionResponse:  # type: ignore[override]
        await self._sessions.drop(str(request.session.get(SESSION_ID_KEY, "")))
        await self._sessions.drop(body.resources_session_id, closed=True)
        return ResourcesCloseSessionResponse(resources_session_id=body.resources_session_id)


def _outcome(body: SweEnvVerifyRequest, session: Session) -> SweEnvVerifyResponse:
    result = session.result
    if session.failure is not None:
        return _masked(body, INFRA_ERROR_KIND, session.failure, episode_id=session.episode_id)
    if result is None:  # never submitted, and grade_unsubmitted is off: the model's own failure
        return SweEnvVerifyResponse(**body.model_dump(), reward=0.0, status="NOT_SUBMITTED", episode_id=session.episode_id, failure_reason="the rollout never called submit_solution")
    if result.infra_error:
        reason = str(result.info.get("error") or result.observation or "INFRA_ERROR")[:2000]
        return _masked(body, INFRA_ERROR_KIND, reason, episode_id=session.episode_id, status=result.status)
    report = result.report or {}
    return SweEnvVerifyResponse(
        **body.model_dump(),
        reward=float(result.reward),
        resolved=bool(report.get("resolved", False)),
        status=result.status,
        episode_id=session.episode_id,
    )


def _masked(body: SweEnvVerifyRequest, kind: str, reason: str, *, episode_id: str = "", status: str = "INFRA_ERROR") -> SweEnvVerifyResponse:
    """NeMo Gym's masked sample: kept out of its scores (``mask_sample``); the reward field, which
    its models require, is 0.0 and means nothing. ``instance_config.mask_sample`` is where older
    NeMo RL consumers read it (as NeMo Gym's own ``judge_failsafe`` writes it)."""
    data = body.model_dump()
    instance_config = data.get("instance_config")
    data["instance_config"] = {**(instance_config if isinstance(instance_config, dict) else {}), "mask_sample": True}
    return SweEnvVerifyResponse(**data, reward=0.0, mask_sample=True, failure_kind=kind, failure_reason=reason[:2000], status=status, episode_id=episode_id)


def _close_on_shutdown(app: FastAPI, close_all: Callable[[], Awaitable[None]]) -> None:
    """Closes every session's episode when the server stops (FastAPI 0.165 has no shutdown hook
    but the lifespan)."""
    inner = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(application: Any) -> AsyncIterator[Any]:
        async with inner(application) as state:
            yield state
        await close_all()

    app.router.lifespan_context = lifespan


if __name__ == "__main__":
    SweEnvSimpleResourcesServer.run_webserver()
