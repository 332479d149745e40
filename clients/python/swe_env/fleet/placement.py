"""Where a fleet client sends an episode: rendezvous hashing on the task, bounded by load, over the
servers' GetServerInfo reports; a server that stops answering taken out, found again after a
restart (at its address or, when the fleet says so, at a new one). ``Placement`` is one object
that AsyncSweEnvClient holds (and delegates its fleet calls to); it asks the servers through the
client's ``Channel`` and knows nothing of the client."""
from __future__ import annotations

import asyncio
import hashlib
import socket
import time
from datetime import datetime
from typing import Any, Dict, List, Optional, Tuple

import grpc

from .._proto.swe_env.v1 import swe_env_pb2 as pb
from ..core.channel import Channel
from ..core.errors import SweEnvError
from ..core.results import to_dict
from .relocation import ServerDirectory


def _score(key: str, address: str) -> int:
    """Rendezvous (highest random weight) score of a key on a server."""
    return int.from_bytes(hashlib.sha256(f"{key}\0{address}".encode()).digest()[:8], "big")


def resolve_all(host_port: str) -> List[str]:
    """Every address a ``host:port`` name resolves to (a headless Service, a DNS round robin)."""
    host, _, port = host_port.rpartition(":")
    infos = socket.getaddrinfo(host, int(port), type=socket.SOCK_STREAM)
    out: List[str] = []
    for family, _, _, _, sockaddr in infos:
        address = f"[{sockaddr[0]}]:{port}" if family == socket.AF_INET6 else f"{sockaddr[0]}:{port}"
        if address not in out:
            out.append(address)
    return out


class Placement:
    """The servers of one client, what each last reported, and which server holds each episode
    and each GRPO group."""

    def __init__(self, channel: Channel, addresses: List[str], directory: ServerDirectory, *, info_ttl_s: float = 2.0, load_factor: float = 1.25) -> None:
        self.channel = channel
        self.addresses = list(addresses)
        self.directory = directory
        self.info_ttl_s = info_ttl_s
        self.load_factor = load_factor
        #: Servers that stopped answering (taken out until they answer again).
        self.down: set = set()
        self._info: Dict[str, Tuple[float, Dict[str, Any]]] = {}
        self._placed: Dict[str, int] = {a: 0 for a in self.addresses}
        self._task_images: Dict[str, str] = {}
        self._episode_address: Dict[str, str] = {}
        self._group_address: Dict[str, str] = {}
        #: When each episode was started (wall clock), to tell a restarted server's NOT_FOUND.
        self._reset_at: Dict[str, float] = {}
        #: Episodes lost with their server (and that server): Close reports them ended as infra_error.
        self._lost: Dict[str, str] = {}

    async def server_info(self, address: str, timeout_s: float = 3.0) -> Dict[str, Any]:
        """What one server can take now (GetServerInfo)."""
        return to_dict(await self.channel.call(address, "GetServerInfo", pb.GetServerInfoRequest(), timeout_s, False))

    # --- where episodes are ---------------------------------------------------------------------

    def episode_address(self, episode_id: str) -> str:
        return self._episode_address.get(episode_id, self.addresses[0])

    def assign(self, episode_id: str, address: str) -> None:
        """The episode is (being) started on ``address``: known before the call, so a caller
        cancelled during Reset can still Close the right server."""
        self._episode_address[episode_id] = address

    def started(self, episode_ids: List[str], address: str, group_id: str = "") -> None:
        """Episodes started on ``address`` (a Reset, a fork's children, a replay)."""
        now = time.time()
        for episode_id in episode_ids:
            self._episode_address[episode_id] = address
            self._reset_at[episode_id] = now
        self._placed[address] = self._placed.get(address, 0) + len(episode_ids)
        if group_id:
            self.pin_group(group_id, address)

    def pin_group(self, group_id: str, address: str) -> None:
        """The group's next Resets go to ``address`` while it has room."""
        self._group_address[group_id] = address

    def lose(self, episode_id: str, address: str) -> None:
        """The episode went with its server: its steps and its Close answer infra_error."""
        self._episode_address.pop(episode_id, None)
        self._lost[episode_id] = address

    def lost_on(self, episode_id: str) -> Optional[str]:
        """The server a lost episode was on (None: not lost)."""
        return self._lost.get(episode_id)

    def ended(self, episode_id: str, address: str, *, closed: bool) -> None:
        """The episode is over: ``closed`` when its server closed it (its place is free again)."""
        self._lost.pop(episode_id, None)
        self._episode_address.pop(episode_id, None)
        self._reset_at.pop(episode_id, None)
        if closed:
            self._placed[address] = max(0, self._placed.get(address, 0) - 1)

    # --- which server -------------------------------------------------------------------------

    async def refresh(self, everyone: bool = False) -> Dict[str, Optional[Dict[str, Any]]]:
        """Asks every server with a stale report (or all) what it can take; a silent one is taken out."""
        now = time.monotonic()

        async def ask(address: str) -> None:
            try:
                self._info[address] = (time.monotonic(), await self.server_info(address))
                self._placed[address] = 0  # the report counts them now
                self.down.discard(address)
            except SweEnvError:
                self.down.add(address)
                self._info.pop(address, None)

        stale = [a for a in self.addresses if everyone or now - self._info.get(a, (0.0, {}))[0] > self.info_ttl_s]
        await asyncio.gather(*(ask(a) for a in stale))
        return {a: self._info.get(a, (0.0, None))[1] for a in self.addresses}

    def _load(self, address: str) -> int:
        return int(self._info.get(address, (0.0, {}))[1].get("live_episodes", 0)) + self._placed.get(address, 0)

    async def _image_of(self, task_id: str, timeout_s: float) -> Optional[str]:
        if task_id in self._task_images:
            return self._task_images[task_id]
        for address in self.addresses:
            if address in self.down:
                continue
            try:
                response = await self.channel.call(address, "GetTask", pb.GetTaskRequest(task_id=task_id), timeout_s, True)
                image = to_dict(response).get("image")
            except SweEnvError as error:
                if error.code == grpc.StatusCode.NOT_FOUND:
                    raise
                continue
            if image:
                self._task_images[task_id] = image
            return image
        return None

    async def candidates(self, task_id: str, group_id: str, key: str, timeout_s: float = 300.0) -> List[str]:
        """The servers to try for a Reset, best first: the group's server while it has room, then
        the servers holding the task's image by the key's rendezvous rank (Reset's key is the task
        id, so every group of a task prefers one server and its image cache), within the bounded
        load, then the least loaded. ``timeout_s``: of the GetTask that reads the task's image."""
        if len(self.addresses) == 1:
            return list(self.addresses)
        await self.refresh()
        alive = [a for a in self.addresses if a not in self.down and not self._info.get(a, (0.0, {}))[1].get("draining")]
        image = await self._image_of(task_id, timeout_s)
        info = lambda a: self._info.get(a, (0.0, {}))[1]  # noqa: E731
        holds = lambda a: not image or image in info(a).get("images", [])  # noqa: E731
        total = sum(self._load(a) for a in alive)
        bound = -(-(self.load_factor * (total + 1)) // max(1, len(alive)))
        opened = lambda a: self._load(a) < int(info(a).get("max_episodes", 1 << 30))  # noqa: E731
        room = lambda a: opened(a) and self._load(a) < bound  # noqa: E731
        ranked = sorted(alive, key=lambda a: _score(key, a), reverse=True)
        by_load = sorted(alive, key=self._load)
        pinned = self._group_address.get(group_id) if group_id else None
        ordered = [a for a in ranked if a == pinned and opened(a)] + [a for a in ranked if holds(a) and room(a)] + [a for a in by_load if opened(a)] + by_load
        seen: List[str] = []
        for a in ordered:
            if a not in seen:
                seen.append(a)
        return seen or list(self.addresses)

    async def gone(self, address: str) -> bool:
        """Whether a server that failed a call is really gone (asked once more, briefly)."""
        if address in self.down:
            return True
        try:
            self._info[address] = (time.monotonic(), await self.server_info(address))
            return False
        except SweEnvError:
            self.down.add(address)
            return True

    async def back_within(self, address: str, wait_s: float) -> bool:
        """Whether a server that stopped answering answers again within ``wait_s`` (a restart), at
        its address or, when the fleet says it moved, at its new one (its episodes move with it)."""
        deadline = time.monotonic() + wait_s
        while True:
            remaining = deadline - time.monotonic()
            try:
                self._info[address] = (time.monotonic(), await self.server_info(address, timeout_s=max(0.5, min(3.0, remaining))))
                self.down.discard(address)
                return True
            except SweEnvError:
                moved = await self.directory.where_now(address, remaining) if self.directory else None
                if moved:
                    self.move(address, moved)
                    address = moved
                    continue
                if remaining <= 0:
                    self.down.add(address)
                    return False
                await asyncio.sleep(min(1.0, max(0.05, remaining)))

    async def relocated(self, address: str, wait_s: float) -> Optional[str]:
        """Where a server taken out answers now, when its fleet says it moved (its episodes moved with it)."""
        if not self.directory:
            return None
        moved = await self.directory.where_now(address, wait_s)
        if moved:
            self.move(address, moved)
        return moved

    def move(self, old: str, new: str) -> None:
        """A server found again at another address: its episodes, groups and place go there."""
        if new in self.addresses:
            self.addresses = [a for a in self.addresses if a != old]
        else:
            self.addresses = [new if a == old else a for a in self.addresses]
        for table in (self._episode_address, self._group_address):
            for key, value in list(table.items()):
                if value == old:
                    table[key] = new
        self._placed[new] = self._placed.pop(old, 0)
        self._info.pop(old, None)
        self.down.discard(old)
        self.down.discard(new)

    async def restarted_since(self, address: str, episode_id: str) -> bool:
        """Whether the server started after this episode did (it restarted: the episode is gone with it)."""
        started = self._reset_at.get(episode_id)
        if started is None:
            return False
        try:
            info = await self.server_info(address)
        except SweEnvError:
            return False
        try:
            server_started = datetime.fromisoformat(info["started_at"].replace("Z", "+00:00")).timestamp()
        except (KeyError, ValueError):
            return False
        return server_started > started

    async def home_of(self, task_id: str) -> str:
        """The server a new group of the task goes to when no server is over its share of the load
        (see ``home``)."""
        if len(self.addresses) > 1:
            await self.refresh()
        return self.home(task_id)

    def home(self, task_id: str) -> str:
        """From the last reports: the first of the task's rendezvous ranking among the servers
        answering and not draining, the server Reset tries first for a new group of the task when
        it holds the image and has room. Prefetch sends the task there (no load counted)."""
        if len(self.addresses) == 1:
            return self.addresses[0]
        alive = [a for a in self.addresses if a not in self.down and not self._info.get(a, (0.0, {}))[1].get("draining")]
        return max(alive or self.addresses, key=lambda a: _score(task_id, a))


__all__ = ["Placement", "resolve_all"]
