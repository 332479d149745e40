"""The OpenEnv server app: OpenEnv's own ``create_fastapi_app`` (``/ws`` sessions, ``/mcp``, the Task
API, ``/schema``, ``/health``) with a factory that makes one ``SweEnvOpenEnvironment`` per session."""
from __future__ import annotations

import functools
from typing import Any, Optional

from openenv.core.env_server.http_server import create_fastapi_app
from openenv.core.env_server.mcp_types import CallToolAction, CallToolObservation
from openenv.core.env_server.types import ConcurrencyConfig

from .backend import Backend
from .environment import SweEnvOpenEnvironment, SweEnvState
from .observations import SweEnvResetObservation

ENV_NAME = "swe_env"


def create_app(backend: Backend, *, max_sessions: int = 64, session_timeout_s: Optional[float] = 900.0) -> Any:
    """``max_sessions``: concurrent sessions (episodes) at most; one more is refused with OpenEnv's
    ``CAPACITY_REACHED``. ``session_timeout_s``: a session idle that long is destroyed by OpenEnv's
    reaper and its episode closed (None: never). OpenEnv counts a session idle from the end of its
    last message, and a WebSocket session of its own (``/ws`` without ``session_id``) is reaped even
    while its socket is open: keep the timeout above the longest tool call (a command's timeout, a
    submit's grading) plus the model's longest turn."""
    # The action class is OpenEnv's CallToolAction: its WebSocket steps then take call_tool and
    # list_tools actions, and MCP tools/list and tools/call on a session go through this
    # environment's step (OpenEnv's "MCP-style actions"), with the swe-env server's tool schemas.
    app = create_fastapi_app(
        functools.partial(SweEnvOpenEnvironment, backend),
        CallToolAction,
        CallToolObservation,
        concurrency_config=ConcurrencyConfig(max_concurrent_envs=max_sessions, session_timeout=session_timeout_s),
        env_name=ENV_NAME,
        state_cls=SweEnvState,
        reset_observation_cls=SweEnvResetObservation,
        mode="production",
    )
    # OpenEnv closes a WebSocket session's environment when its socket goes, but not the sessions
    # made over HTTP MCP (openenv/session/create, as its MCPToolClient does) when the server stops.
    app.router.on_shutdown.append(backend.close_all)
    return app
