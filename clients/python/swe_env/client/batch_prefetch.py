"""``BatchPrefetcher``: prefetches the next batches of a training loop while the current one runs,
through a client (or one it opens on the addresses given). Above the clients: they know nothing of it.
"""
from __future__ import annotations

import asyncio
import functools
import logging
import threading
from collections import deque
from concurrent.futures import Future
from typing import Any, Callable, Deque, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

from ..core.loop import LoopThread
from ..fleet.prefetch import PrefetchResult
from .async_client import AsyncSweEnvClient
from .sync_client import SweEnvClient

logger = logging.getLogger("swe_env.prefetch")


def _task_id_of_row(row: Any) -> str:
    if isinstance(row, str):
        return row
    if isinstance(row, dict):
        for key in ("task_id", "instance_id"):
            if row.get(key):
                return str(row[key])
        for key in ("extra_info", "extra_env_info", "metadata"):  # verl rows, NeMo-RL samples
            inner = row.get(key)
            if isinstance(inner, dict):
                found = _task_id_of_row(inner)
                if found:
                    return found
    return ""


def task_ids_of(batch: Any) -> List[str]:
    """The task ids of one batch: a list of ids, of rows (``task_id`` / ``instance_id``, or inside
    ``extra_info`` / ``extra_env_info``), or a collated batch (a dict whose ``extra_info`` (verl) or
    ``extra_env_info`` (NeMo-RL) is a list or array of such dicts, or whose ``task_id`` /
    ``instance_id`` is a list)."""
    if isinstance(batch, str):
        return [batch]
    getter = getattr(batch, "get", None)
    if getter is not None and not isinstance(batch, (list, tuple)):
        for key in ("extra_info", "extra_env_info"):
            column = getter(key)
            if column is not None and not isinstance(column, (dict, str)):
                return [t for t in (_task_id_of_row(r) for r in column) if t]
        for key in ("task_id", "instance_id"):
            column = getter(key)
            if column is not None and not isinstance(column, str):
                return [str(t) for t in column if t]
        one = _task_id_of_row(dict(batch)) if isinstance(batch, dict) else ""
        return [one] if one else []
    return [t for t in (_task_id_of_row(r) for r in batch) if t]


Client = Union[AsyncSweEnvClient, SweEnvClient, str, Sequence[str]]


class BatchPrefetcher:
    """Wraps the batches of a training loop (a dataloader, a list, any iterable): iterating it
    yields the same batches, and when batch k is handed out, the images of batches k+1 ..
    k+``lookahead`` are prefetched (and batch 0's with the first), without waiting for the answers.
    It reads ``lookahead`` batches ahead of the loop; ``state_dict()`` is the wrapped loader's state
    as of the batch handed out last, so a resumed run skips nothing. Each ``iter()`` is one epoch.

    ``client``: an ``AsyncSweEnvClient``, a ``SweEnvClient``, or the address(es) to build one.
    ``task_ids``: how to read a batch's task ids (default ``task_ids_of``). For a sequence of
    batches, ``start(k)`` does the same without iterating (for loops that index their batches)."""

    def __init__(
        self,
        client: Client,
        batches: Iterable[Any],
        *,
        lookahead: int = 1,
        task_ids: Callable[[Any], List[str]] = task_ids_of,
        timeout_s: float = 30.0,
    ) -> None:
        if lookahead < 0:
            raise ValueError(f"lookahead must be 0 or more, not {lookahead}")
        self.batches = batches
        self.lookahead = int(lookahead)
        self.task_ids = task_ids
        self.timeout_s = timeout_s
        self._own: Optional[SweEnvClient] = None
        self._own_loop: Optional[LoopThread] = None
        if isinstance(client, SweEnvClient):
            self._aio, self._loop = client.aio, client._loop
        elif isinstance(client, AsyncSweEnvClient):
            self._own_loop = LoopThread()  # its channels are per event loop: this one is ours
            self._aio, self._loop = client, self._own_loop
        else:
            self._own = SweEnvClient(client)
            self._aio, self._loop = self._own.aio, self._own._loop
        self._lock = threading.Lock()
        self._sent: Dict[int, "Future[PrefetchResult]"] = {}
        #: (batch index, task ids) of every Prefetch sent, in order (for logs and tests).
        self.sent: List[Tuple[int, List[str]]] = []
        self._state: Any = None

    # --- sending -------------------------------------------------------------------------------

    def _send(self, index: int, batch: Any) -> None:
        with self._lock:
            if index in self._sent:
                return
            ids = list(dict.fromkeys(self.task_ids(batch)))
            future: "Future[PrefetchResult]" = asyncio.run_coroutine_threadsafe(self._aio.prefetch(ids, timeout_s=self.timeout_s), self._loop.loop)
            self._sent[index] = future
            self.sent.append((index, ids))
        future.add_done_callback(functools.partial(self._done, index))

    @staticmethod
    def _done(index: int, future: "Future[PrefetchResult]") -> None:
        if future.cancelled():
            return
        error = future.exception()
        if error is not None:  # a prefetch is advice: the Resets pull what is missing themselves
            logger.warning("swe_env prefetch of batch %d failed (its Resets will pull what is missing): %s", index, error)

    def start(self, k: int) -> None:
        """Batch k begins: prefetches batches k .. k+lookahead of a sequence of batches."""
        batches = self.batches
        if not isinstance(batches, Sequence):
            raise TypeError("start(k) needs a sequence of batches; iterate the prefetcher instead")
        for j in range(k, min(len(batches), k + self.lookahead + 1)):
            self._send(j, batches[j])

    def results(self, timeout_s: Optional[float] = None) -> Dict[int, PrefetchResult]:
        """Waits for the Prefetch calls sent so far: batch index -> what the servers answered (a
        failed call is left out and was logged)."""
        out: Dict[int, PrefetchResult] = {}
        for index, future in list(self._sent.items()):
            try:
                out[index] = future.result(timeout=timeout_s)
            except Exception:  # logged by _done
                continue
        return out

    # --- iterating -----------------------------------------------------------------------------

    def __iter__(self) -> Iterator[Any]:
        with self._lock:
            self._sent.clear()  # a new epoch: its batches are prefetched again
        source = iter(self.batches)
        state_of = getattr(self.batches, "state_dict", None)
        buffer: Deque[Tuple[Any, Any]] = deque()
        exhausted = False
        k = 0
        while True:
            while not exhausted and len(buffer) < 1 + self.lookahead:
                try:
                    batch = next(source)
                except StopIteration:
                    exhausted = True
                    break
                buffer.append((batch, state_of() if callable(state_of) else None))
            if not buffer:
                return
            for j, (ahead, _) in enumerate(buffer):
                self._send(k + j, ahead)
            batch, self._state = buffer.popleft()
            yield batch
            k += 1

    def __len__(self) -> int:
        return len(self.batches)  # type: ignore[arg-type]

    def state_dict(self) -> Any:
        """The wrapped loader's state as of the batch handed out last (not of the batches read ahead)."""
        if self._state is not None:
            return self._state
        return self.batches.state_dict()  # type: ignore[attr-defined]

    def load_state_dict(self, state: Any) -> None:
        self.batches.load_state_dict(state)  # type: ignore[attr-defined]
        self._state = None

    def __getattr__(self, name: str) -> Any:  # the wrapped loader's other attributes (dataset, sampler...)
        if name == "batches":
            raise AttributeError(name)
        return getattr(self.batches, name)

    def close(self) -> None:
        """Stops the event loop this prefetcher made (a client passed in is left open)."""
        if self._own is not None:
            self._own.shutdown()
            self._own = None
        if self._own_loop is not None:
            self._own_loop.stop()
            self._own_loop = None


__all__ = ["BatchPrefetcher", "task_ids_of"]
