"""Fork and Replay (issue 22): branch a live episode into children, or start one from a recorded
prefix. ``Branching`` is one object AsyncSweEnvClient holds and delegates ``fork`` and ``replay``
to; the children of a fork stay on their parent's server (its state lives there), and a replay
goes to the first server unless one is named.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence

from .._proto.swe_env.v1 import swe_env_pb2 as pb
from ..core.channel import Channel
from ..core.results import episode_options
from ..fleet.placement import Placement


@dataclass(frozen=True)
class ForkResult:
    """The children, in order; ``branch_step`` is the parent's step count when it was copied, and
    so each child's next ``step_index``."""

    episode_ids: List[str]
    branch_step: int
    copied_entries: int = 0
    copied_bytes: int = 0
    deleted_paths: int = 0
    duration_s: float = 0.0
    address: str = ""


@dataclass(frozen=True)
class Divergence:
    step_index: int
    field: str  # observation, exit_code or status
    recorded: str
    replayed: str


@dataclass(frozen=True)
class ReplayResult:
    """The new episode (its next ``step_index`` is ``steps``) and every difference the rerun showed."""

    episode_id: str
    steps: int
    divergences: List[Divergence] = field(default_factory=list)
    first_divergence: int = -1
    duration_s: float = 0.0
    address: str = ""


class Branching:
    """Fork and Replay over a client's channel; where the new episodes are goes to its placement."""

    def __init__(self, channel: Channel, placement: Placement) -> None:
        self.channel = channel
        self.placement = placement

    async def fork(
        self,
        episode_id: str,
        n: int,
        *,
        fresh_budgets: bool = False,
        child_episode_ids: Optional[Sequence[str]] = None,
        timeout_s: float,
    ) -> ForkResult:
        """Forks a live episode between steps into ``n`` children on its server. With
        ``child_episode_ids`` (n of them) a retried fork returns the children it made."""
        address = self.placement.episode_address(episode_id)
        request = pb.ForkRequest(episode_id=episode_id, count=n, fresh_budgets=fresh_budgets, child_episode_ids=list(child_episode_ids or []))
        response = await self.channel.call(address, "Fork", request, timeout_s, bool(child_episode_ids))
        self.placement.started(list(response.episode_ids), address)
        return ForkResult(
            episode_ids=list(response.episode_ids),
            branch_step=response.branch_step,
            copied_entries=response.copied_entries,
            copied_bytes=response.copied_bytes,
            deleted_paths=response.deleted_paths,
            duration_s=response.duration_s,
            address=address,
        )

    async def replay(
        self,
        *,
        source_episode_id: str = "",
        trajectory_jsonl: str = "",
        steps: int = 0,
        episode_id: str = "",
        options: Optional[Dict[str, Any]] = None,
        address: Optional[str] = None,
        timeout_s: float,
    ) -> ReplayResult:
        """Starts an episode from a recording's first ``steps`` bash steps, run again: a trajectory
        the server recorded (``source_episode_id``: the server that ran it, by default the one that
        holds it now) or the JSONL text of one."""
        where = address or (self.placement.episode_address(source_episode_id) if source_episode_id else self.placement.addresses[0])
        request = pb.ReplayRequest(source_episode_id=source_episode_id, trajectory_jsonl=trajectory_jsonl, steps=steps, episode_id=episode_id)
        opts = episode_options(options)
        if opts is not None:
            request.options.CopyFrom(opts)
        response = await self.channel.call(where, "Replay", request, timeout_s, False)
        self.placement.started([response.episode_id], where)
        return ReplayResult(
            episode_id=response.episode_id,
            steps=response.steps,
            divergences=[Divergence(d.step_index, d.field, d.recorded, d.replayed) for d in response.divergences],
            first_divergence=response.first_divergence,
            duration_s=response.duration_s,
            address=where,
        )


__all__ = ["Branching", "Divergence", "ForkResult", "ReplayResult"]
