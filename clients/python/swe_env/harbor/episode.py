"""One swe-env episode seen as a Harbor sandbox: commands through its ``bash``, grading through
its ``submit_solution``.

A step the environment failed (INFRA_ERROR, a lost server) raises :class:`EnvironmentFailed`:
Harbor records it as the trial's exception and writes no reward, so a trainer reading Harbor's
results gets no reward for the trial instead of a 0. The episode's own ends (its step or time
budget) raise :class:`EpisodeEnded`; what it was graded at then is kept for the verification.
"""
from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Dict, Optional

from ..client.async_client import AsyncSweEnvClient
from ..core.results import StepResult

#: The widest episode the server allows (docs/protocol.md#options): Harbor's agents and Harbor
#: itself (uploads, log downloads) run many more, longer commands than a model's own episode.
HARBOR_EPISODE_OPTIONS: Dict[str, Any] = {
    "max_steps": 10_000,
    "command_timeout_s": 3600,
    # Past an exported task's agent timeout (3600 s) plus its verification: Harbor's own timeouts
    # end the trial first, and the episode's clock only bounds a trial Harbor lost track of.
    "episode_timeout_s": 4 * 3600,
    "output_limit_bytes": 4 * 1024 * 1024,
}


class EnvironmentFailed(RuntimeError):
    """swe-env's own failure (INFRA_ERROR): the trial has no reward, never a 0."""


class EpisodeEnded(RuntimeError):
    """The episode ended (its step or time budget, or it was graded): nothing more runs in it."""


@dataclass(frozen=True)
class Grade:
    """swe-env's grading of the episode: the reward and the server's report."""

    reward: float
    report: Dict[str, Any]
    status: str


class Episode:
    def __init__(self, client: AsyncSweEnvClient, task_id: str, episode_id: str, options: Optional[Dict[str, Any]] = None) -> None:
        self.client = client
        self.task_id = task_id
        self.episode_id = episode_id
        self.options = {**HARBOR_EPISODE_OPTIONS, **(options or {})}
        self._next_step = 0
        self._started = False
        self._closed = False
        self._ended: Optional[StepResult] = None
        self._grade: Optional[Grade] = None
        # Harbor may call exec concurrently (an agent's parallel tool calls); the episode runs one
        # step at a time, in order.
        self._lock = asyncio.Lock()
        #: A cancelled step being stopped and counted: the next step waits for it.
        self._settling: "Optional[asyncio.Future[None]]" = None

    async def start(self) -> None:
        # The episode id is Harbor's session id: a retried start joins the same episode. Marked
        # started first so that a Reset cut after the server began it is still closed.
        self._started = True
        await self.client.reset(self.task_id, episode_id=self.episode_id, options=self.options)

    async def _step(self, name: str, arguments: Dict[str, Any]) -> StepResult:
        async with self._lock:
            if self._settling is not None:
                await self._settling
            if self._ended is not None:
                raise EpisodeEnded(f"swe-env episode {self.episode_id} ended ({self._ended.status}): {self._ended.observation[-500:]}")
            step = asyncio.ensure_future(self.client.step(self.episode_id, self._next_step, name, arguments))
            try:
                result = await asyncio.shield(step)
            except asyncio.CancelledError:
                # Harbor cancels a call at its own timeouts (the agent's): the command would run on
                # in the episode's shell, and the next call (the verification's) would wait for it
                # under the same step index. It is stopped, and its step's answer taken, first.
                self._settling = asyncio.ensure_future(self._settle(step))
                raise
            return self._took(result)

    async def _settle(self, step: "asyncio.Future[StepResult]") -> None:
        try:
            if not step.done():
                await self.client.interrupt(self.episode_id)
            self._took(await step)
        except Exception as error:  # the episode is lost to the environment: masked, never a 0
            self._ended = StepResult("", 0.0, True, False, "INFRA_ERROR", self._next_step, -1, {"error": str(error)})
        finally:
            self._settling = None

    def _took(self, result: StepResult) -> StepResult:
        """Counts a step the server answered and keeps how the episode ended."""
        self._next_step += 1
        if result.infra_error:
            self._ended = result
            raise EnvironmentFailed(f"swe-env environment failure (INFRA_ERROR) in episode {self.episode_id}: {result.observation[-2000:]}")
        if result.terminated or result.truncated:
            self._ended = result
            if result.report is not None:
                self._grade = Grade(result.reward, result.report, result.status)
        return result

    async def bash(self, command: str) -> StepResult:
        """One command in the episode's shell; raises once the episode has ended."""
        result = await self._step("bash", {"command": command})
        if result.status in ("TRUNCATED_STEPS", "TRUNCATED_TIME"):
            raise EpisodeEnded(f"swe-env episode {self.episode_id} reached its budget ({result.status})")
        return result

    async def grade(self) -> Grade:
        """swe-env's grading of the repository as the agent left it (once; later calls return it).
        An episode its budget ended was graded then (truncation GRADE) or scores 0 (ZERO)."""
        if self._grade is not None:
            return self._grade
        if self._ended is not None:
            if self._ended.infra_error:
                raise EnvironmentFailed(f"swe-env environment failure (INFRA_ERROR) in episode {self.episode_id}")
            return Grade(self._ended.reward, {}, self._ended.status)
        result = await self._step("submit_solution", {})
        if self._grade is None:
            raise EnvironmentFailed(f"swe-env gave no grading report for episode {self.episode_id}: {result.status} {result.observation[-500:]}")
        return self._grade

    async def close(self) -> Dict[str, Any]:
        if self._closed or not self._started:
            return {}
        self._closed = True
        return await self.client.close(self.episode_id)
