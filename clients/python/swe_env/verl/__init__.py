"""verl integration (verl 0.9.x): the ``swe_env`` agent loop, a ``bash`` / ``submit_solution``
BaseTool pair for verl's ToolAgentLoop, the ``swe_env_grpo`` advantage estimator, and a dataset
converter. Importing ``swe_env.verl`` needs verl (``pip install 'swe-env-client[verl]'``), except
``swe_env.verl.dataset``, which needs only pyarrow.
"""
from __future__ import annotations

import os
from typing import Any


def config_path(name: str) -> str:
    """Absolute path of a YAML shipped in this package (``agent_loop.yaml``, ``tool_config.yaml``):
    verl resolves an absolute ``agent_loop_config_path`` / ``tool_config_path`` on every node."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "config", name)
    if not os.path.exists(path):
        raise FileNotFoundError(path)
    return path


def __getattr__(name: str) -> Any:  # lazy: the dataset converter must import without verl
    if name in ("SweEnvAgentLoop", "EXTRA_FIELDS"):
        from . import agent_loop

        return getattr(agent_loop, name)
    if name in ("SweBashTool", "SweSubmitTool", "compute_score"):
        from . import tools

        return getattr(tools, name)
    raise AttributeError(name)


# verl's trainer and workers import `actor_rollout_ref.model.external_lib` by name: importing the
# package registers the swe_env_grpo estimator when verl is present. The agent loop is imported only
# when used (the agent-loop YAML's `_target_`, `swe_env.verl.agent_loop`, or an attribute above):
# it pulls verl's agent-loop machinery (ray, cachetools, fastapi, uvicorn...), which the dataset
# converter (`swe_env.verl.dataset`, pyarrow only) must not need.
try:
    import verl  # noqa: F401
except ImportError:  # pragma: no cover - only the dataset converter is usable then
    pass
else:
    from . import advantage  # noqa: F401

__all__ = ["config_path"]
