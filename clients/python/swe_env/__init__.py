"""Python client for the swe-env gRPC environment server."""
from .client import AsyncSweEnvClient, ResetResult, StepResult
from .sync_client import SweEnvClient
from .env import AsyncSweEnv, SweEnv
from .errors import (
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
from .parsing import ToolCall, parse_tool_call, parse_tool_calls
from .branching import Divergence, ForkResult, ReplayResult
from .batch_prefetch import BatchPrefetcher, task_ids_of
from .prefetch import ImageState, PrefetchResult

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
