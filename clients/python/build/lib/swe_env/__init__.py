"""Python client for the swe-env gRPC environment server."""
from .client import AsyncSweEnvClient, ResetResult, StepResult, SweEnvClient
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

__version__ = "0.1.0"

__all__ = [
    "AlreadyExistsError",
    "AsyncSweEnv",
    "AsyncSweEnvClient",
    "DeadlineExceededError",
    "FailedPreconditionError",
    "InternalError",
    "InvalidArgumentError",
    "NotFoundError",
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
]
