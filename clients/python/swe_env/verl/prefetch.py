"""Task images ahead of their batches, for verl 0.9's trainer: ``SweEnvRLHFDataset``, verl's own
``RLHFDataset`` that prefetches on the swe-env servers the images of the batches that come next.

verl gives no hook that sees the next batch but its dataloader, which reads whole batches from the
dataset (``__getitems__``). Select the class and say where the servers are and how far to look::

    data.custom_cls.path=pkg://swe_env.verl.prefetch data.custom_cls.name=SweEnvRLHFDataset
    '+data.swe_env_addr=[HOST:PORT,HOST:PORT]'   # a list (a bare A,B is a Hydra sweep); or SWE_ENV_ADDR
    +data.prefetch_lookahead=2                    # batches ahead (default 1; 0: the batch itself)
    data.shuffle=false                            # shuffle the parquet instead (see below)

When a batch is read, the images of its tasks and, with ``data.shuffle=false`` (the order is then
the file's: shuffle the rows when you write it), of the ``prefetch_lookahead`` batches after it are
prefetched (at an epoch's end, the next epoch's first batches), each task on the server its groups
will be placed on (one call per server, not waited for; a failure is logged: the Resets pull what
is missing). With ``data.shuffle=true`` verl's sampler alone knows the order, so only the batch
being read is prefetched, in every epoch: ahead of the loop by the dataloader's own read-ahead
(``data.dataloader_num_workers`` x 2 batches; none with 0 workers).
"""
from __future__ import annotations

import asyncio
import functools
import logging
import os
from typing import Any, Dict, List, Optional, Sequence, Tuple

from verl.utils.dataset.rl_dataset import RLHFDataset

from ..client.sync_client import SweEnvClient
from ..client.batch_prefetch import BatchPrefetcher

logger = logging.getLogger(__name__)

#: How many reads' Prefetch calls a shuffled dataset keeps (for ``prefetch_results``).
SHUFFLED_KEPT = 64


def _addresses(value: Any) -> List[str]:
    if not value:
        return []
    if isinstance(value, str):
        return [a.strip() for a in value.split(",") if a.strip()]
    return [str(a) for a in value]


class SweEnvRLHFDataset(RLHFDataset):
    """verl's RLHFDataset; reading a batch prefetches its images and the next batches' (above)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        config = self.config
        self.swe_env_addresses = _addresses(config.get("swe_env_addr") or os.environ.get("SWE_ENV_ADDR"))
        self.prefetch_lookahead = max(0, int(config.get("prefetch_lookahead", 1) or 0))
        self.prefetch_batch_size = int(config.get("gen_batch_size") or config.get("train_batch_size") or 0)
        self.prefetch_in_order = not bool(config.get("shuffle", True))
        # Kept here (the dataframe is not pickled into the dataloader's workers).
        self.task_ids: List[str] = [str((extra or {}).get("task_id") or "") for extra in self.dataframe["extra_info"]] if "extra_info" in self.dataframe.column_names else []
        self._swe_env: Optional[SweEnvClient] = None
        self._swe_env_pid = 0
        self._swe_env_sent: Dict[Tuple[int, int], Any] = {}
        self._swe_env_epoch = 0
        self._swe_env_reads = 0
        if not self.swe_env_addresses:
            logger.warning("SweEnvRLHFDataset: no data.swe_env_addr (or SWE_ENV_ADDR): no images are prefetched")

    def __getstate__(self) -> Dict[str, Any]:
        state = super().__getstate__()
        state.update(_swe_env=None, _swe_env_pid=0, _swe_env_sent={}, _swe_env_epoch=0, _swe_env_reads=0)  # each worker process makes its own
        return state

    def __getitems__(self, indices: Sequence[int]) -> List[Any]:
        """One batch, as torch's fetcher asks for it; its images (and the next batches') prefetched first."""
        indices = [int(i) for i in indices]
        try:
            self.prefetch_from(indices)
        except Exception:  # a prefetch is advice: never the batch's failure
            logger.exception("SweEnvRLHFDataset: prefetch failed")
        return [self[i] for i in indices]

    def batches_from(self, indices: Sequence[int]) -> List[List[int]]:
        """The batches to prefetch when ``indices`` is read: that batch and, when the order is the
        file's (``shuffle=false``: consecutive batches of ``batch_size`` rows, the last partial one
        dropped), the ``prefetch_lookahead`` batches after it, into the next epoch at the end."""
        return [batch for _, batch in self._batches_ahead(indices)]

    def _batches_ahead(self, indices: Sequence[int]) -> List[Tuple[int, List[int]]]:
        """``batches_from`` with how many epochs ahead of the read batch each one is."""
        batches: List[Tuple[int, List[int]]] = [(0, list(indices))]
        n, size = len(self.task_ids), self.prefetch_batch_size
        per_epoch = n // size if size else 0
        consecutive = all(b == a + 1 for a, b in zip(indices, indices[1:]))
        if self.prefetch_in_order and per_epoch and len(indices) == size and consecutive and indices[0] % size == 0:
            current = indices[0] // size
            # Never further than one whole epoch: the batch after that is the read one again.
            for j in range(1, min(self.prefetch_lookahead, per_epoch - 1) + 1):
                start = ((current + j) % per_epoch) * size
                batches.append(((current + j) // per_epoch, list(range(start, start + size))))
        return batches

    def prefetch_from(self, indices: Sequence[int]) -> List[List[str]]:
        """Sends the Prefetch calls for ``batches_from(indices)`` not sent yet by this process;
        returns the task ids sent, per call. In file order a batch sent ahead is not sent again
        when it is read (each is known by its epoch and first row); in verl's shuffled order every
        batch is sent when it is read, whatever an earlier epoch read."""
        if not self.swe_env_addresses or not self.task_ids:
            return []
        if self._swe_env is None or self._swe_env_pid != os.getpid():
            self._swe_env = SweEnvClient(self.swe_env_addresses)
            self._swe_env_pid, self._swe_env_sent, self._swe_env_epoch, self._swe_env_reads = os.getpid(), {}, 0, 0
        ordered = self.prefetch_in_order and bool(indices)
        if ordered and indices[0] == 0 and self._swe_env_reads > 0:
            self._swe_env_epoch += 1  # file order starts again: a new epoch
        self._swe_env_reads += 1
        sent: List[List[str]] = []
        for ahead, batch in self._batches_ahead(indices):
            if not batch:
                continue
            key = (self._swe_env_epoch + ahead, batch[0]) if ordered else (-self._swe_env_reads, batch[0])
            if key in self._swe_env_sent:
                continue
            ids = list(dict.fromkeys(t for t in (self.task_ids[i] for i in batch) if t))
            future = asyncio.run_coroutine_threadsafe(self._swe_env.aio.prefetch(ids), self._swe_env._loop.loop)
            future.add_done_callback(functools.partial(BatchPrefetcher._done, batch[0]))
            self._swe_env_sent[key] = future
            sent.append(ids)
        # Only the batches still ahead (file order), or the last reads' (shuffled), are worth keeping.
        stale = [k for k in self._swe_env_sent if k[0] < self._swe_env_epoch] if ordered else list(self._swe_env_sent)[:-SHUFFLED_KEPT]
        for key in stale:
            self._swe_env_sent.pop(key)
        return sent

    def prefetch_results(self, timeout_s: Optional[float] = None) -> Dict[Tuple[int, int], Any]:
        """Waits for this process's Prefetch calls: (epoch, first row of the batch) -> PrefetchResult
        (in shuffled order the epoch is minus the read's number)."""
        out: Dict[Tuple[int, int], Any] = {}
        for first, future in list(self._swe_env_sent.items()):
            try:
                out[first] = future.result(timeout=timeout_s)
            except Exception:
                continue
        return out


__all__ = ["SweEnvRLHFDataset"]
