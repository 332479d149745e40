"""The wire to the servers: one gRPC channel per event loop and address, credentials and the
bearer token, every call with a deadline and retried only where the caller says it is safe."""
from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

import grpc

from .._proto.swe_env.v1 import swe_env_pb2_grpc as pb_grpc
from .errors import from_rpc_error

#: Keepalive the Node server accepts (it permits pings without calls, every 5 s at most).
CHANNEL_OPTIONS: Tuple[Tuple[str, Any], ...] = (
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
    ("grpc.max_receive_message_length", 64 * 1024 * 1024),
    ("grpc.max_send_message_length", 64 * 1024 * 1024),
    # A restarted server (same address) is found again within about a second, not the default
    # backoff's growing waits: its episodes go on after a restart.
    ("grpc.initial_reconnect_backoff_ms", 200),
    ("grpc.min_reconnect_backoff_ms", 200),
    ("grpc.max_reconnect_backoff_ms", 2_000),
)

#: Failures after which a call is retried, for the calls that are safe to retry.
RETRYABLE = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})


#: A Reset that could not be placed on one server moves on to the next one on these.
MOVE_ON = frozenset({grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})


class Channel:
    """The calls to every server of a client. ``token`` is sent as ``authorization: Bearer``;
    ``root_certificates`` (or ``tls=True`` for the system's roots) turns TLS on,
    ``certificate_chain``/``private_key`` give mutual TLS. The token and the CA can also come from
    the environment (``SWE_ENV_AUTH_TOKEN``, ``SWE_ENV_CA_FILE``): the integrations build their
    clients themselves, in workers that inherit it."""

    def __init__(
        self,
        *,
        token: Optional[str] = None,
        root_certificates: Optional[bytes] = None,
        tls: bool = False,
        certificate_chain: Optional[bytes] = None,
        private_key: Optional[bytes] = None,
        retries: int = 5,
        backoff_s: float = 0.2,
    ) -> None:
        self.retries = retries
        self.backoff_s = backoff_s
        #: How many calls were retried (for metrics and tests).
        self.retry_count = 0
        token = token if token is not None else (os.environ.get("SWE_ENV_AUTH_TOKEN") or None)
        if root_certificates is None and os.environ.get("SWE_ENV_CA_FILE"):
            root_certificates = Path(os.environ["SWE_ENV_CA_FILE"]).read_bytes()
        self._metadata: Tuple[Tuple[str, str], ...] = (("authorization", f"Bearer {token}"),) if token else ()
        secure = tls or root_certificates is not None or certificate_chain is not None
        self._credentials = (
            grpc.ssl_channel_credentials(root_certificates=root_certificates, private_key=private_key, certificate_chain=certificate_chain) if secure else None
        )
        self._channels: Dict[Tuple[int, str], grpc.aio.Channel] = {}
        self._stubs: Dict[Tuple[int, str], pb_grpc.SweEnvStub] = {}

    def stub(self, address: str) -> pb_grpc.SweEnvStub:
        """The stub of the running event loop for ``address``, its channel made on first use."""
        key = (id(asyncio.get_running_loop()), address)
        stub = self._stubs.get(key)
        if stub is None:
            if self._credentials is not None:
                channel = grpc.aio.secure_channel(address, self._credentials, options=CHANNEL_OPTIONS)
            else:
                channel = grpc.aio.insecure_channel(address, options=CHANNEL_OPTIONS)
            self._channels[key] = channel
            stub = self._stubs[key] = pb_grpc.SweEnvStub(channel)
        return stub

    async def call(self, address: str, method: str, request: Any, timeout_s: float, retry: bool) -> Any:
        """One RPC; with ``retry``, retried on RETRYABLE failures with a growing backoff. Failures
        are raised as SweEnvError subclasses."""
        attempt = 0
        while True:
            try:
                return await getattr(self.stub(address), method)(request, timeout=timeout_s, metadata=self._metadata)
            except grpc.aio.AioRpcError as error:
                if not retry or error.code() not in RETRYABLE or attempt >= self.retries:
                    raise from_rpc_error(error) from None
            attempt += 1
            self.retry_count += 1
            await asyncio.sleep(min(5.0, self.backoff_s * (2 ** (attempt - 1))))

    async def aclose(self) -> None:
        """Closes the channels of the running loop."""
        loop_id = id(asyncio.get_running_loop())
        for key in [k for k in self._channels if k[0] == loop_id]:
            await self._channels.pop(key).close()
            self._stubs.pop(key, None)


__all__ = ["CHANNEL_OPTIONS", "Channel", "MOVE_ON", "RETRYABLE"]
