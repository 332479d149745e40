"""Prefetch (issue 19) against real servers: the demo tasks' images are present, unknown ids are
reported and not raised, GetServerInfo's image_supply comes through, and BatchPrefetcher
prefetches batch k+1 when batch k begins (also over a resumable loader, torchdata's)."""
from __future__ import annotations

import asyncio
import logging
from typing import Any, Dict, List

import pytest

from swe_env import AsyncSweEnvClient, BatchPrefetcher, SweEnvClient, task_ids_of
from swe_env.prefetch import PrefetchResult


def test_demo_images_are_present_and_unknown_ids_are_reported(server: Any, demo_tasks: Dict[str, dict], caplog: pytest.LogCaptureFixture) -> None:
    ids = sorted(demo_tasks)
    with SweEnvClient(server.address) as client, caplog.at_level(logging.WARNING, logger="swe_env.prefetch"):
        result = client.prefetch([*ids, "no-such-task", ids[0]])
        info = client.server_info(server.address)
        images = {client.get_task(t)["image"] for t in ids}
    assert isinstance(result, PrefetchResult)
    assert result.unknown_task_ids == ["no-such-task"]
    assert "no-such-task" in caplog.text
    assert result.ready and not result.failed
    assert {i.image for i in result.images} == images and len(result.images) == len(images)
    assert sorted(t for i in result.images for t in i.task_ids) == ids  # each task once, under its image
    assert all(i.phase == "present" and i.address == server.address and not i.error for i in result.images)
    supply = info["image_supply"]
    assert {"pulls_running", "pulls_queued", "max_pulls", "cache_bytes", "evictions", "pinned_images"} <= set(supply)
    assert int(supply["max_pulls"]) >= 1
    assert int(supply["pinned_images"]) >= 1  # prefetched recently: kept from eviction


def test_async_prefetch_of_nothing_known() -> None:
    async def main() -> PrefetchResult:
        client = AsyncSweEnvClient("127.0.0.1:1")  # never called: no ids
        return await client.prefetch([])

    assert asyncio.run(main()) == PrefetchResult()


def test_task_ids_of_rows_and_collated_batches() -> None:
    import numpy as np

    assert task_ids_of(["a", "b"]) == ["a", "b"]
    assert task_ids_of([{"instance_id": "a"}, {"extra_info": {"task_id": "b"}}]) == ["a", "b"]
    assert task_ids_of({"extra_info": np.array([{"task_id": "a"}, {"task_id": "b"}], dtype=object)}) == ["a", "b"]  # verl
    assert task_ids_of({"extra_env_info": [{"task_id": "a"}], "message_log": [[]]}) == ["a"]  # NeMo-RL
    assert task_ids_of({"instance_id": ["a", "b"]}) == ["a", "b"]


def test_batch_prefetcher_prefetches_the_next_batch_when_one_begins(server: Any, demo_tasks: Dict[str, dict]) -> None:
    ids = sorted(demo_tasks)
    batches = [[{"instance_id": t}] for t in ids[:4]]
    with SweEnvClient(server.address) as client:
        prefetcher = BatchPrefetcher(client, batches, lookahead=1)
        seen: List[Any] = []
        sent_at_start: List[List[int]] = []
        for batch in prefetcher:
            seen.append(batch)
            sent_at_start.append([k for k, _ in prefetcher.sent])
        assert seen == batches
        # batch 0 begins with batches 0 and 1 asked for; batch k with k+1; nothing past the end
        assert sent_at_start == [[0, 1], [0, 1, 2], [0, 1, 2, 3], [0, 1, 2, 3]]
        assert [ids for _, ids in prefetcher.sent] == [[t] for t in ids[:4]]
        results = prefetcher.results(timeout_s=30)
        assert sorted(results) == [0, 1, 2, 3] and all(r.ready for r in results.values())

        two = BatchPrefetcher(client, batches, lookahead=2)
        two.start(1)  # an indexing loop says batch 1 begins
        assert [k for k, _ in two.sent] == [1, 2, 3]
        assert all(r.ready for r in two.results(timeout_s=30).values())


class _Loader:
    """A resumable loader with a StatefulDataLoader's surface (state_dict after each batch handed out)."""

    def __init__(self, rows: List[Any], batch_size: int) -> None:
        self.rows, self.batch_size, self.position = rows, batch_size, 0
        self.dataset = rows

    def __iter__(self) -> Any:
        while self.position < len(self.rows):
            batch = self.rows[self.position : self.position + self.batch_size]
            self.position += self.batch_size
            yield batch

    def __len__(self) -> int:
        return -(-len(self.rows) // self.batch_size)

    def state_dict(self) -> Dict[str, int]:
        return {"position": self.position}

    def load_state_dict(self, state: Dict[str, int]) -> None:
        self.position = state["position"]


def test_batch_prefetcher_over_a_stateful_loader_resumes_where_the_loop_was(server: Any, demo_tasks: Dict[str, dict]) -> None:
    """A loader read ahead by the prefetcher: its state_dict is the loop's, not the read-ahead's."""
    ids = sorted(demo_tasks)[:6]
    rows = [{"task_id": t} for t in ids]
    prefetcher = BatchPrefetcher(server.address, _Loader(rows, 2), lookahead=2)
    try:
        iterator = iter(prefetcher)
        first = next(iterator)
        assert first == rows[:2] and [k for k, _ in prefetcher.sent] == [0, 1, 2]
        resumed = _Loader(rows, 2)
        resumed.load_state_dict(prefetcher.state_dict())
        assert list(resumed) == [rows[2:4], rows[4:6]]  # nothing the prefetcher read ahead is skipped
        assert len(prefetcher) == 3 and prefetcher.dataset is rows  # the loader's own attributes
        assert all(r.ready for r in prefetcher.results(timeout_s=30).values())
    finally:
        prefetcher.close()
