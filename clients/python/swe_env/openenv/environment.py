"""``SweEnvOpenEnvironment``: the OpenEnv ``Environment`` of one session, holding one swe-env episode.

OpenEnv's server (``HTTPEnvServer``) makes one instance per WebSocket session (or HTTP MCP session)
with the factory, runs its ``reset`` / ``step`` / ``close`` in that session's own executor thread
(one at a time), and calls ``close`` when the session ends: the client closed it, its WebSocket
went away, or the idle reaper (``session_timeout``) destroyed it. ``close`` closes the episode,
so its container goes.

Actions are OpenEnv's MCP actions: ``call_tool`` (a swe-env tool call: ``bash``,
``submit_solution``) and ``list_tools``. The instance is cheap until ``reset``: OpenEnv also makes
short-lived instances for its Task API and stateless HTTP routes.
"""
from __future__ import annotations

import logging
from typing import Any, Callable, Dict, Optional

from fastapi import HTTPException
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.mcp_types import CallToolAction, ListToolsAction, ListToolsObservation
from openenv.core.env_server.types import Action, EnvironmentMetadata, Observation, State

from ..core.errors import InvalidArgumentError, NotFoundError, SweEnvError
from .backend import Backend
from .observations import SweEnvResetObservation, flags, infra_observation, tool_observation
from .tasks import TaskCatalog

logger = logging.getLogger("swe_env.openenv")


def _known_split(read: Callable[[TaskCatalog], Any], backend: Backend) -> Any:
    """An unknown split is a 404 with the known ones named (OpenEnv's routes turn only
    NotImplementedError and IndexError into answers; anything else would be a 500)."""
    try:
        return read(TaskCatalog(backend))
    except KeyError as error:
        raise HTTPException(status_code=404, detail=str(error.args[0])) from error


class SweEnvState(State):
    task_id: str = ""
    done: bool = False
    #: The session's episode was closed (session closed, or reaped while idle).
    closed: bool = False


class SweEnvOpenEnvironment(Environment):  # type: ignore[misc]  # openenv is untyped here (mypy sees Any)
    # Sessions share only the thread-safe Backend; each has its own episode.
    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, backend: Backend) -> None:
        super().__init__()
        self._backend = backend
        self._task_id = ""
        self._episode_id = ""
        self._step_index = 0
        self._done = False
        self._closed = False

    # -- Task API (OpenEnv's TaskProvider, found on the environment by the server) --
    def list_splits(self) -> list:
        return TaskCatalog(self._backend).splits()

    def list_tasks(self, split: str) -> list:
        return _known_split(lambda catalog: catalog.list_tasks(split), self._backend)

    def num_tasks(self, split: str) -> int:
        return int(_known_split(lambda catalog: catalog.num_tasks(split), self._backend))

    def get_task(self, split: str, index: int) -> Any:
        return _known_split(lambda catalog: catalog.get_task(split, index), self._backend)

    def get_task_range(self, split: str, start: Optional[int] = None, stop: Optional[int] = None) -> list:
        return _known_split(lambda catalog: catalog.get_task_range(split, start, stop), self._backend)

    # -- episode --
    def reset(
        self,
        seed: Optional[int] = None,
        episode_id: Optional[str] = None,
        task_id: Optional[str] = None,
        split: Optional[str] = None,
        index: Optional[int] = None,
        group_id: str = "",
        options: Optional[Dict[str, Any]] = None,
        **kwargs: Any,
    ) -> Observation:
        """Opens an episode on ``task_id`` (or the task at ``split`` / ``index`` of the Task API),
        closing this session's previous one. A task the server does not have raises ValueError,
        which OpenEnv answers as an error message; the session stays usable."""
        if kwargs:
            raise ValueError(f"unknown reset arguments {sorted(kwargs)}: give task_id=... (or split=..., index=...), seed, episode_id, group_id, options")
        task = self._resolve_task(task_id, split, index)
        self._close_episode()
        self._episode_id, self._closed = "", False
        try:
            started = self._backend.client.reset(task, episode_id=episode_id, seed=seed or 0, group_id=group_id, options=options)
        except (NotFoundError, InvalidArgumentError) as error:
            raise ValueError(f"swe-env refused task {task!r}: {error.details} (the server's tasks: GET /swe_env/splits, POST /swe_env/tasks)") from error
        self._task_id, self._episode_id, self._step_index = task, started.episode_id, 0
        self._done = self._closed = False
        self._backend.hold(self, self._close_episode)
        return SweEnvResetObservation(
            prompt=started.observation,
            task_id=task,
            episode_id=started.episode_id,
            metadata={**flags(), "episode_id": started.episode_id, "task_id": task, "info": started.info, "options": started.options},
        )

    def _resolve_task(self, task_id: Optional[str], split: Optional[str], index: Optional[int]) -> str:
        if task_id:
            return task_id
        if split is not None and index is not None:
            try:
                return TaskCatalog(self._backend).task_id(split, int(index))
            except (KeyError, IndexError) as error:
                raise ValueError(str(error.args[0])) from error
        raise ValueError("reset needs task_id=... (or split=... and index=... from the Task API)")

    def step(self, action: Action, timeout_s: Optional[float] = None, **kwargs: Any) -> Observation:
        if isinstance(action, ListToolsAction):
            return ListToolsObservation(tools=self._backend.tools(self._task_id), metadata=self._flags())
        if not isinstance(action, CallToolAction):
            raise ValueError(f"unsupported action {type(action).__name__}: send call_tool (bash, submit_solution) or list_tools")
        self._check_live()
        index = self._step_index
        try:
            result = self._backend.client.step(
                self._episode_id, index, action.tool_name, action.arguments, timeout_s=timeout_s or self._backend.step_timeout_s
            )
        except SweEnvError as error:
            # The server could not answer this call: the environment's failure, not the model's.
            logger.warning("episode %s step %d: %s", self._episode_id, index, error)
            self._done = True
            return infra_observation(action.tool_name, str(error), episode_id=self._episode_id, task_id=self._task_id, step_index=index)
        self._step_index = index + 1
        observation = tool_observation(action.tool_name, result, episode_id=self._episode_id, task_id=self._task_id)
        self._done = observation.done
        return observation

    def _check_live(self) -> None:
        if self._closed:
            raise RuntimeError(f"this session's episode {self._episode_id} was closed (the session was closed, or reaped after being idle): open a new session")
        if not self._episode_id:
            raise RuntimeError("no episode in this session: reset(task_id=...) first")
        if self._done:
            raise RuntimeError(f"episode {self._episode_id} has ended: reset to start another")

    def _flags(self) -> Dict[str, Any]:
        return {**flags(terminated=self._done), "episode_id": self._episode_id, "task_id": self._task_id}

    @property
    def state(self) -> SweEnvState:
        return SweEnvState(episode_id=self._episode_id or None, step_count=self._step_index, task_id=self._task_id, done=self._done, closed=self._closed)

    def get_metadata(self) -> EnvironmentMetadata:
        return EnvironmentMetadata(
            name="swe_env",
            description="SWE-bench style episodes on swe-env: bash in the episode's container, submit_solution grades with hidden tests (reward 1 or 0)",
        )

    def _close_episode(self) -> None:
        if not self._episode_id or self._closed:
            return
        self._closed = True
        self._backend.release(self)
        try:
            self._backend.client.close(self._episode_id)
        except SweEnvError as error:
            # The server ends an episode no client calls (its adoption grace); nothing to raise to.
            logger.warning("closing episode %s: %s", self._episode_id, error)

    def close(self) -> None:
        self._close_episode()
