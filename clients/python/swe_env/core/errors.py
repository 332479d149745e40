"""Exceptions raised by the client, one per gRPC status the server uses."""
from __future__ import annotations

from typing import Dict, Type

import grpc


class SweEnvError(Exception):
    """Base class. ``code`` is the gRPC status, ``details`` the server's message."""

    code: grpc.StatusCode = grpc.StatusCode.UNKNOWN

    def __init__(self, details: str, code: grpc.StatusCode | None = None) -> None:
        super().__init__(details)
        self.details = details
        if code is not None:
            self.code = code


class InvalidArgumentError(SweEnvError):
    code = grpc.StatusCode.INVALID_ARGUMENT


class NotFoundError(SweEnvError):
    """Unknown task or episode, or an episode that expired or was closed (the message says which)."""

    code = grpc.StatusCode.NOT_FOUND


class AlreadyExistsError(SweEnvError):
    code = grpc.StatusCode.ALREADY_EXISTS


class FailedPreconditionError(SweEnvError):
    """Out-of-order step index, or a step on an episode that has ended."""

    code = grpc.StatusCode.FAILED_PRECONDITION


class ResourceExhaustedError(SweEnvError):
    """The server is full (live episodes or container starts) until the call's deadline."""

    code = grpc.StatusCode.RESOURCE_EXHAUSTED


class UnavailableError(SweEnvError):
    code = grpc.StatusCode.UNAVAILABLE


class DeadlineExceededError(SweEnvError):
    code = grpc.StatusCode.DEADLINE_EXCEEDED


class CancelledError(SweEnvError):
    code = grpc.StatusCode.CANCELLED


class InternalError(SweEnvError):
    """The environment failed (Docker, an image): not the model's fault."""

    code = grpc.StatusCode.INTERNAL


_BY_CODE: Dict[grpc.StatusCode, Type[SweEnvError]] = {
    cls.code: cls
    for cls in (
        InvalidArgumentError,
        NotFoundError,
        AlreadyExistsError,
        FailedPreconditionError,
        ResourceExhaustedError,
        UnavailableError,
        DeadlineExceededError,
        CancelledError,
        InternalError,
    )
}


def from_rpc_error(error: grpc.RpcError) -> SweEnvError:
    code = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
    details = error.details() if hasattr(error, "details") else str(error)
    cls = _BY_CODE.get(code, SweEnvError)
    return cls(details or str(code), code)
