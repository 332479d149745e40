"""The gRPC channel's options and which failures a call retries or moves on from."""
from __future__ import annotations

from typing import Any, Tuple

import grpc

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
