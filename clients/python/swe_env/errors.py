"""Re-export: this module moved to swe_env.core.errors (the package's layers: see swe_env/__init__.py).
Kept at its old path for the imports users and docs have; nothing inside swe_env imports it."""
from .core.errors import (
    AlreadyExistsError,
    CancelledError,
    DeadlineExceededError,
    FailedPreconditionError,
    InternalError,
    InvalidArgumentError,
    NotFoundError,
    ResourceExhaustedError,
    SweEnvError,
    UnavailableError,
    from_rpc_error,
)

__all__ = [
    "AlreadyExistsError",
    "CancelledError",
    "DeadlineExceededError",
    "FailedPreconditionError",
    "InternalError",
    "InvalidArgumentError",
    "NotFoundError",
    "ResourceExhaustedError",
    "SweEnvError",
    "UnavailableError",
    "from_rpc_error",
]
