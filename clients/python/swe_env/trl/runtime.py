"""The private event loop and client behind one spec's rollouts, in one process.

TRL calls ``reset`` synchronously from its training loop and awaits async tools and ``get_reward``
on an event loop of its own (GRPOTrainer's daemon loop, or AsyncGRPOTrainer's rollout loop). A
gRPC aio channel belongs to the loop it was made on, so every call of a spec goes through one
loop thread of its own: sync code blocks on it, async code awaits it (``asyncio.wrap_future``)
without blocking TRL's loop. One runtime per process (a fork or a spawned worker makes its own).

Closes are not waited for by the rollouts (TRL scores the rollouts of a batch one after another:
waiting for each container's removal would add up); the runtime keeps them, and ``close`` (the
spec's, and at interpreter exit) waits for them and closes every episode still open.
"""
from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import logging
import os
import threading
import weakref
from typing import Any, Awaitable, Dict, List, Optional, Sequence, Set, TypeVar

from ..core.loop import LoopThread
from ..client.async_client import AsyncSweEnvClient

logger = logging.getLogger("swe_env.trl")

T = TypeVar("T")

_LIVE: "weakref.WeakSet[Runtime]" = weakref.WeakSet()


class Runtime:
    """A loop thread, one client on it, and the episodes it opened and has not closed yet."""

    def __init__(self, addresses: Sequence[str], client_kwargs: Optional[Dict[str, Any]] = None) -> None:
        self.pid = os.getpid()
        self._thread = LoopThread()
        self.client = AsyncSweEnvClient(list(addresses), **dict(client_kwargs or {}))
        self._lock = threading.Lock()
        #: Episode ids whose Reset was sent and whose Close was not (or has not answered).
        self.open: Set[str] = set()
        self._pending: Set["concurrent.futures.Future[Any]"] = set()
        self._stopped = False
        _LIVE.add(self)

    def submit(self, coro: Awaitable[T]) -> "concurrent.futures.Future[T]":
        """Runs ``coro`` on the private loop; the caller waits for it or awaits ``wrap_future`` of it."""
        return asyncio.run_coroutine_threadsafe(coro, self._thread.loop)  # type: ignore[arg-type]

    def run(self, coro: Awaitable[T], timeout_s: Optional[float] = None) -> T:
        return self.submit(coro).result(timeout=timeout_s)

    async def wait(self, coro: Awaitable[T]) -> T:
        """Awaits ``coro`` run on the private loop, from any other loop."""
        return await asyncio.wrap_future(self.submit(coro))

    def started(self, episode_id: str) -> None:
        with self._lock:
            self.open.add(episode_id)

    async def _close(self, episode_id: str) -> Optional[Dict[str, Any]]:
        try:
            return await self.client.close(episode_id)
        except Exception as error:  # never started, or gone already: nothing to close
            logger.debug("swe_env.trl: closing %s: %s", episode_id, error)
            return None
        finally:
            with self._lock:
                self.open.discard(episode_id)

    def close_later(self, episode_id: str) -> "concurrent.futures.Future[Optional[Dict[str, Any]]]":
        """Sends the episode's Close now, waited for by ``close``."""
        future = self.submit(self._close(episode_id))
        with self._lock:
            self._pending.add(future)
        future.add_done_callback(self._forget)
        return future

    def _forget(self, future: "concurrent.futures.Future[Any]") -> None:
        with self._lock:
            self._pending.discard(future)

    def fire(self, coro: Awaitable[Any], what: str) -> None:
        """Advice the rollouts do not wait for (prefetch, prewarm): a failure is logged, never raised."""
        future = self.submit(coro)

        def done(f: "concurrent.futures.Future[Any]") -> None:
            if not f.cancelled() and f.exception() is not None:
                logger.warning("swe_env.trl: %s failed: %s", what, f.exception())

        future.add_done_callback(done)

    def close(self, timeout_s: float = 120.0) -> List[str]:
        """Waits for the Closes under way and closes every episode still open; returns the ids it
        could not close within ``timeout_s``. The loop stops after."""
        if self._stopped or self.pid != os.getpid():
            return []
        with self._lock:
            pending = list(self._pending)
            still_open = sorted(self.open)
        concurrent.futures.wait(pending, timeout=timeout_s)

        async def close_all() -> None:
            await asyncio.gather(*(self._close(e) for e in still_open))
            await self.client.aclose()

        try:
            self.run(close_all(), timeout_s)
        except Exception as error:
            logger.warning("swe_env.trl: closing the open episodes: %s", error)
        left = sorted(self.open)
        self._stopped = True
        self._thread.stop()
        return left


def _close_all_at_exit() -> None:
    for runtime in list(_LIVE):
        runtime.close(timeout_s=60.0)


atexit.register(_close_all_at_exit)

__all__ = ["Runtime"]
