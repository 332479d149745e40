"""Python client for the swe-env gRPC environment server.

The package is layered, each layer importing only those below it (tests/test_layers.py fails on an
import against them or on any import circle):

- ``swe_env.core``: the wire (channels and calls, errors, results, tool-call parsing);
- ``swe_env.fleet``: placement over several servers, relocation, image prefetch;
- ``swe_env.client``: AsyncSweEnvClient (it holds a Channel, a Placement and a Branching),
  SweEnvClient, the Gym-shaped envs, BatchPrefetcher;
- the integrations, each its own package or module over those: ``swe_env.trl``, ``swe_env.verl``,
  ``swe_env.ray``, ``swe_env.harbor``, ``swe_env.openenv``, ``swe_env.nemo_gym``,
  ``swe_env.nemo_rl``, ``swe_env.mini_swe_agent``.

This module re-exports the names users import from ``swe_env``; the modules at the old paths
(``swe_env.errors``, ``swe_env.prefetch``...) re-export theirs.
"""
from . import address_schemes  # noqa: F401  (``ray:NAME`` address entries: registered before any client is built)
from .client import AsyncSweEnvClient, ResetResult, StepResult, SweEnvClient
from .client.env import AsyncSweEnv, SweEnv
from .core.errors import (
    AlreadyExistsError,
    DeadlineExceededError,
    FailedPreconditionError,
    InternalError,
    InvalidArgumentError,
    NotFoundError,
    ResourceExhaustedError,
    SweEnvError,
    UnavailableError,
)
from .core.parsing import ToolCall, parse_tool_call, parse_tool_calls
from .client.branching import Divergence, ForkResult, ReplayResult
from .client.batch_prefetch import BatchPrefetcher, task_ids_of
from .fleet.prefetch import ImageState, PrefetchResult

__version__ = "0.1.0"

__all__ = [
    "AlreadyExistsError",
    "AsyncSweEnv",
    "AsyncSweEnvClient",
    "BatchPrefetcher",
    "DeadlineExceededError",
    "Divergence",
    "FailedPreconditionError",
    "ForkResult",
    "ImageState",
    "InternalError",
    "InvalidArgumentError",
    "NotFoundError",
    "PrefetchResult",
    "ReplayResult",
    "ResetResult",
    "ResourceExhaustedError",
    "StepResult",
    "SweEnv",
    "SweEnvClient",
    "SweEnvError",
    "ToolCall",
    "UnavailableError",
    "parse_tool_call",
    "parse_tool_calls",
    "task_ids_of",
]
