"""Task images ahead of their episodes: ``Prefetch`` per server (``prefetch_tasks``, what the
clients' ``prefetch`` calls). ``BatchPrefetcher``, which prefetches the next batches of a training
loop while the current one runs, is built on the clients in client/batch_prefetch.py.

A fleet client sends each task to the server its groups will be placed on (``Placement.home``: the
task id's rendezvous rank, the rule Reset uses for a new group), one call per server, concurrently.
"""
from __future__ import annotations

import asyncio
import logging
from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Sequence, Tuple

from .._proto.swe_env.v1 import swe_env_pb2 as pb
from ..core.channel import Channel
from .placement import Placement

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


async def prefetch_tasks(channel: Channel, placement: Placement, task_ids: Sequence[str], *, timeout_s: float = 30.0) -> PrefetchResult:
    """What ``AsyncSweEnvClient.prefetch`` does: each task to its home server (no load counted),
    batched per server (at most ``MAX_IDS_PER_CALL`` ids a call), the calls concurrent."""
    ids = list(dict.fromkeys(str(t) for t in task_ids if t))
    if not ids:
        return PrefetchResult()
    if len(placement.addresses) > 1:
        await placement.refresh()
    by_server: Dict[str, List[str]] = {}
    for task_id in ids:
        by_server.setdefault(placement.home(task_id), []).append(task_id)
    calls: List[Tuple[str, List[str]]] = [
        (address, chunk[i : i + MAX_IDS_PER_CALL]) for address, chunk in by_server.items() for i in range(0, len(chunk), MAX_IDS_PER_CALL)
    ]

    async def one(address: str, chunk: List[str]) -> Any:
        return await channel.call(address, "Prefetch", pb.PrefetchRequest(task_ids=chunk), timeout_s, True)

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


__all__ = ["ImageState", "PrefetchResult", "MAX_IDS_PER_CALL", "image_state", "prefetch_tasks"]
