"""The swe-env episodes of NeMo Gym sessions (one per session cookie) for the base resources server
(``swe_env.nemo_gym.resources``): what a session's episode did so far, and its release.

An episode is closed on the swe-env server as soon as it ends (submitted, truncated or failed), so
its sandbox goes while the session's record waits for ``/verify``. A session nobody verifies (an
agent that crashed between ``/seed_session`` and ``/verify``) is reaped after ``idle_timeout_s``.
No import of nemo-gym here: the registry is plain asyncio.
"""
from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import Awaitable, Callable, Dict, List, Optional

from ..core.results import StepResult

logger = logging.getLogger(__name__)

CloseEpisode = Callable[[str], Awaitable[object]]
_MAX_CLOSED = 100_000


@dataclass
class Session:
    session_id: str
    episode_id: str
    task_id: str
    #: What seeded it (an Environment Server's episode id): the same seed again is the same session.
    seed_key: str = ""
    step_index: int = 0
    #: The step that ended the episode (a graded submit, a truncation or INFRA_ERROR).
    result: Optional[StepResult] = None
    #: Why the environment (never the model) failed this episode: the sample is masked.
    failure: Optional[str] = None
    released: bool = False
    last_used: float = field(default_factory=time.monotonic)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def done(self) -> bool:
        return self.result is not None or self.failure is not None

    def touch(self) -> None:
        self.last_used = time.monotonic()


class SessionRegistry:
    """Sessions by NeMo Gym session id, their episodes released exactly once."""

    def __init__(self, close_episode: CloseEpisode, idle_timeout_s: float) -> None:
        self._close_episode = close_episode
        self.idle_timeout_s = idle_timeout_s
        self.sessions: Dict[str, Session] = {}
        #: Sessions an Environment Server closed: a seed arriving after its close must not recreate
        #: one (NeMo Gym's contract). Insertion-ordered, the oldest forgotten past the cap.
        self._closed: Dict[str, None] = {}
        self._reaper: Optional["asyncio.Task[None]"] = None

    def get(self, session_id: str) -> Optional[Session]:
        return self.sessions.get(session_id)

    def add(self, session: Session) -> None:
        self.sessions[session.session_id] = session
        self._start_reaper()

    async def release(self, session: Session) -> None:
        """Closes the session's episode on the swe-env server (its sandbox goes); the record stays."""
        if session.released:
            return
        session.released = True
        try:
            await self._close_episode(session.episode_id)
        except Exception as error:  # never started, or already gone: the server's idle timeout covers the rest
            logger.warning("swe_env: closing episode %s failed: %s", session.episode_id, error)

    def was_closed(self, session_id: str) -> bool:
        return session_id in self._closed

    async def drop(self, session_id: Optional[str], *, closed: bool = False) -> None:
        """Releases the session's episode and forgets the session; ``closed``: for good."""
        if closed and session_id:
            self._closed[session_id] = None
            while len(self._closed) > _MAX_CLOSED:
                del self._closed[next(iter(self._closed))]
        session = self.sessions.pop(session_id, None) if session_id else None
        if session is not None:
            await self.release(session)

    async def reap_idle(self) -> List[str]:
        """Drops every session idle for longer than ``idle_timeout_s``; returns their ids."""
        cutoff = time.monotonic() - self.idle_timeout_s
        idle = [s.session_id for s in self.sessions.values() if s.last_used < cutoff and not s.lock.locked()]
        for session_id in idle:
            logger.warning("swe_env: session %s idle for over %ss: its episode is closed", session_id, self.idle_timeout_s)
            await self.drop(session_id)
        return idle

    async def close_all(self) -> None:
        if self._reaper is not None:
            self._reaper.cancel()
            self._reaper = None
        for session_id in list(self.sessions):
            await self.drop(session_id)

    def _start_reaper(self) -> None:
        # Started by the first session, in the server's own event loop (there is none at construction).
        if self._reaper is None or self._reaper.done():
            self._reaper = asyncio.get_running_loop().create_task(self._reap_forever())

    async def _reap_forever(self) -> None:
        interval = max(0.5, min(self.idle_timeout_s / 4, 30.0))
        while True:
            await asyncio.sleep(interval)
            try:
                await self.reap_idle()
            except Exception as error:  # a reaper that dies leaks every later session: keep going
                logger.warning("swe_env: reaping idle sessions failed: %s", error)
