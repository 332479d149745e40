"""Task images ahead of their episodes (issue 19): ``Prefetch`` per server, and ``BatchPrefetcher``,
which prefetches the next batches of a training loop while the current one runs.

A fleet client sends each task to the server its groups will be placed on (``Placement.home``: the
task id's rendezvous rank, the rule Reset uses for a new group), one call per server, concurrently.
"""
from __future__ import annotations

import asyncio
import logging
import threading
from collections import deque
from concurrent.futures import Future
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Deque, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

from ._proto.swe_env.v1 import swe_env_pb2 as pb

if TYPE_CHECKING:  # pragma: no cover
    from .client import AsyncSweEnvClient, SweEnvClient

logger = logging.getLogger(__name__)

#: Task ids one Prefetch call may carry (the server's MAX_PREFETCH_TASKS); more go in several calls.
MAX_IDS_PER_CALL = 10_000


@dataclass(frozen=True)
class ImageState:
    """One image on one server: ``phase`` is ``present`` (a Reset needs no pull), ``pulling``,
    ``queued`` (waiting for a pull slot) or ``failed`` (``error`` says why; the next request retries)."""

    image: str
    task_ids: List[str]
    phase: str
    error: str = ""
    bytes_done: int = 0
    bytes_total: int = 0
    layers_done: int = 0
    layers_total: int = 0
    attempt: int = 0
    address: str = ""


@dataclass(frozen=True)
class PrefetchResult:
    images: List[ImageState] = field(default_factory=list)
    #: Task ids a server did not have loaded: nothing was started for them.
    unknown_task_ids: List[str] = field(default_factory=list)

    @property
    def failed(self) -> List[ImageState]:
        return [i for i in self.images if i.phase == "failed"]

    @property
    def ready(self) -> bool:
        """Every image is on its server."""
        return all(i.phase == "present" for i in self.images)

    def to_dict(self) -> Dict[str, Any]:
        return {"images": [asdict(i) for i in self.images], "unknown_task_ids": list(self.unknown_task_ids)}


def image_state(message: Any, address: str = "") -> ImageState:
    return ImageState(
        image=message.image,
        task_ids=list(message.task_ids),
        phase=pb.ImagePhase.Name(message.phase).replace("IMAGE_PHASE_", "").lower(),
        error=message.error,
        bytes_done=int(message.bytes_done),
        bytes_total=int(message.bytes_total),
        layers_done=int(message.layers_done),
        layers_total=int(message.layers_total),
        attempt=int(message.attempt),
        address=address,
    )


async def prefetch_tasks(client: "AsyncSweEnvClient", task_ids: Sequence[str], *, timeout_s: float = 30.0) -> PrefetchResult:
    """What ``AsyncSweEnvClient.prefetch`` does: each task to its home server (no load counted),
    batched per server (at most ``MAX_IDS_PER_CALL`` ids a call), the calls concurrent."""
    ids = list(dict.fromkeys(str(t) for t in task_ids if t))
    if not ids:
        return PrefetchResult()
    if len(client.addresses) > 1:
        await client.refresh()
    by_server: Dict[str, List[str]] = {}
    for task_id in ids:
        by_server.setdefault(client.home(task_id), []).append(task_id)
    calls: List[Tuple[str, List[str]]] = [
        (address, chunk[i : i + MAX_IDS_PER_CALL]) for address, chunk in by_server.items() for i in range(0, len(chunk), MAX_IDS_PER_CALL)
    ]

    async def one(address: str, chunk: List[str]) -> Any:
        return await client._call(address, "Prefetch", pb.PrefetchRequest(task_ids=chunk), timeout_s, True)

    responses = await asyncio.gather(*(one(address, chunk) for address, chunk in calls))
    images: List[ImageState] = []
    unknown: List[str] = []
    for (address, _), response in zip(calls, responses):
        images.extend(image_state(m, address) for m in response.images)
        unknown.extend(response.unknown_task_ids)
    if unknown:
        shown = ", ".join(unknown[:10]) + (f" and {len(unknown) - 10} more" if len(unknown) > 10 else "")
        logger.warning("swe_env prefetch: %d task id(s) unknown to the server(s), nothing pulled for them: %s", len(unknown), shown)
    for state in images:
        if state.phase == "failed":
            logger.warning("swe_env prefetch: pulling %s on %s failed: %s", state.image, state.address, state.error)
    return PrefetchResult(images=images, unknown_task_ids=unknown)


# --- the next batches of a training loop ---------------------------------------------------------


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


Client = Union["AsyncSweEnvClient", "SweEnvClient", str, Sequence[str]]


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
        from .client import AsyncSweEnvClient, SweEnvClient, _LoopThread

        if lookahead < 0:
            raise ValueError(f"lookahead must be 0 or more, not {lookahead}")
        self.batches = batches
        self.lookahead = int(lookahead)
        self.task_ids = task_ids
        self.timeout_s = timeout_s
        self._own: Optional[SweEnvClient] = None
        self._own_loop: Optional[_LoopThread] = None
        if isinstance(client, SweEnvClient):
            self._aio, self._loop = client.aio, client._loop
        elif isinstance(client, AsyncSweEnvClient):
            self._own_loop = _LoopThread()  # its channels are per event loop: this one is ours
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
        future.add_done_callback(lambda f, i=index: self._done(i, f))

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


__all__ = ["BatchPrefetcher", "ImageState", "PrefetchResult", "MAX_IDS_PER_CALL", "image_state", "prefetch_tasks", "task_ids_of"]
