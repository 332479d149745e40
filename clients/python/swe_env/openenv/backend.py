"""What every session of one OpenEnv server shares: the swe-env client (one set of gRPC channels
and one event loop thread for all sessions; its calls are thread-safe, each session runs in its
own executor thread) and the server's task list and tool schemas, read once."""
from __future__ import annotations

import threading
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

from openenv.core.env_server.mcp_types import Tool

from ..client.sync_client import SweEnvClient
from .tools import mcp_tools


class Backend:
    """The swe-env side of an OpenEnv server. ``addresses`` as for ``SweEnvClient`` (one server,
    several, ``dns:``/``ray:`` entries); ``client_options`` go to it (token, TLS, timeouts)."""

    def __init__(self, addresses: Union[str, Sequence[str]], *, step_timeout_s: Optional[float] = None, **client_options: Any) -> None:
        self.client = SweEnvClient(addresses, **client_options)
        #: Deadline of one tool call (a submit grades: give it the grading's time), None: the client's.
        self.step_timeout_s = step_timeout_s
        self._lock = threading.Lock()
        self._tasks: Optional[List[Dict[str, Any]]] = None
        self._tools: Dict[str, List[Tool]] = {}
        # The close functions of sessions holding an episode: called at shutdown, since OpenEnv
        # does not destroy its HTTP-created (MCP) sessions when the server stops.
        self._live: Dict[int, Callable[[], None]] = {}

    def tasks(self) -> List[Dict[str, Any]]:
        """Every task the (first) server lists, in its order; read once (a server's task set is
        fixed for its life)."""
        with self._lock:
            if self._tasks is None:
                self._tasks = self.client.list_tasks()
            return self._tasks

    def tools(self, task_id: str = "") -> List[Tool]:
        """The tools of ``task_id``'s episodes (any task's when none is given: before a reset)."""
        task_id = task_id or self._first_task_id()
        with self._lock:
            cached = self._tools.get(task_id)
        if cached is None:
            cached = mcp_tools(self.client.get_task(task_id)["tools"])
            with self._lock:
                self._tools[task_id] = cached
        return cached

    def _first_task_id(self) -> str:
        tasks = self.tasks()
        if not tasks:
            raise RuntimeError("the swe-env server lists no tasks")
        return str(tasks[0]["task_id"])

    def hold(self, owner: Any, close: Callable[[], None]) -> None:
        with self._lock:
            self._live[id(owner)] = close

    def release(self, owner: Any) -> None:
        with self._lock:
            self._live.pop(id(owner), None)

    def close_all(self) -> None:
        """Closes every episode a session still holds (the server is stopping)."""
        with self._lock:
            closers = list(self._live.values())
            self._live.clear()
        for close in closers:
            close()

    def shutdown(self) -> None:
        self.close_all()
        self.client.shutdown()
