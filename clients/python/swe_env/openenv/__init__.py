"""swe-env served through OpenEnv (PyPI ``openenv`` 0.10): each OpenEnv WebSocket session holds one
swe-env episode, opened over gRPC on a swe-env server with this package's client.

* ``environment.py``: the OpenEnv ``Environment`` of one session (reset / MCP-style tool calls / close).
* ``observations.py``: what a step answers, with ``INFRA_ERROR`` and truncation in ``metadata``.
* ``tools.py``: the server's tool schemas as MCP tools (``tools/list``).
* ``tasks.py``: OpenEnv's Task API (splits = the server's datasets).
* ``app.py`` / ``__main__.py``: the FastAPI app made by OpenEnv's own ``create_fastapi_app``, and its CLI
  (``python -m swe_env.openenv --swe-env 127.0.0.1:50051 --port 8000``).

Importing this package needs ``openenv`` (not a dependency of the client: see docs/trainers.md).
"""
from .app import create_app
from .backend import Backend
from .environment import SweEnvOpenEnvironment, SweEnvState

__all__ = ["Backend", "SweEnvOpenEnvironment", "SweEnvState", "create_app"]
