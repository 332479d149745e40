"""``SweEnvRollout``: one TRL environment instance, one swe-env episode per rollout.

TRL's contract (trl 1.16, ``GRPOTrainer`` with ``environment_factory``): an instance is made once
and reused, ``reset(**row)`` starts each rollout and returns text appended to the prompt, public
methods are the tools, ``get_reward()`` scores the rollout, and only ``None`` from it masks the
sample (every reward function None -> NaN -> out of the group's mean, advantage 0). TRL calls
``reset`` without catching anything (an exception ends the training step) and calls the resets of
a batch one after another. So:

* ``reset`` never raises: a task the server refuses (unknown task, no capacity, server down) or an
  empty ``task_id`` gives an explanatory observation, tools that answer with the error, and a
  ``None`` reward.
* ``reset`` does not wait for the sandbox when the task's prompt is known (the spec reads it with
  GetTask; it is what Reset returns): the Reset goes out on the runtime's loop and the first tool
  call awaits it, so the batch's Resets run together instead of one after another.
* The episode's shell persists across the rollout's tool calls (one episode per rollout); the
  calls of one assistant turn (TRL gathers them) run one after another, in the model's order.
* An INFRA_ERROR step, or a Step the server cannot answer, ends the episode masked (``None``).
* The reward is the server's grading (``submit_solution``'s step reward). A rollout that ends
  without submitting (the model stopped calling tools, or TRL's max_tool_calling_iterations or
  max_completion_length cut it) scores 0, the model's failure, unless the spec grades it.
* With ``defer_grading`` the submit answers at once and its grading runs while TRL goes on to
  the next rollout's calls (TRL runs them one rollout at a time); ``get_reward`` waits for it.
* The episode is closed after its reward, at the next ``reset`` if it was not scored, and at exit.
"""
from __future__ import annotations

import asyncio
import logging
import uuid
from dataclasses import dataclass, field
from typing import Any, Dict, Optional, Protocol

from ..core.results import StepResult
from ..core.text import cut_middle
from .runtime import Runtime

logger = logging.getLogger("swe_env.trl")

#: What a deferred submit answers at once (``defer_grading``): the grading's outcome is the reward.
DEFERRED_SUBMIT = "Your solution was submitted; it is graded when the episode ends."


@dataclass
class _Episode:
    task_id: str
    episode_id: str
    started: Any = None  # concurrent Future of the Reset (None: no Reset was sent)
    step_index: int = 0
    done: bool = False
    masked: bool = False
    error: str = ""
    reward: Optional[float] = None
    end_reason: str = ""
    closed: bool = False
    last: Optional[StepResult] = None
    lock: Optional[asyncio.Lock] = field(default=None, repr=False)
    grading: Any = None  # concurrent Future of a deferred submit (``defer_grading``)


class _Spec(Protocol):
    """What a rollout reads of its ``SweEnvSpec`` (spec.py, which builds the rollout classes and so
    is not imported here)."""

    episode_options: Dict[str, Any]
    max_observation_chars: int
    grade_unsubmitted: bool
    defer_grading: bool
    reset_timeout_s: float

    @property
    def submit_tool(self) -> str: ...

    def _runtime(self) -> Runtime: ...

    def _prompt_of(self, task_id: str) -> Optional[str]: ...

    def _group_of(self, task_id: str, row: Dict[str, Any]) -> str: ...

    def _look_ahead(self, row: Dict[str, Any], group_id: str) -> None: ...


class SweEnvRollout:
    """Base of the generated environment classes (``SweEnvSpec.environment_factory``). The spec
    adds one async method per server tool; public attributes here are properties (TRL takes every
    public *function* of the class for a tool)."""

    _spec: _Spec

    def __init__(self) -> None:
        self._episode: Optional[_Episode] = None

    # --- what a trainer or a test reads -----------------------------------------------------------

    @property
    def episode_id(self) -> str:
        return self._episode.episode_id if self._episode else ""

    @property
    def task_id(self) -> str:
        return self._episode.task_id if self._episode else ""

    @property
    def masked(self) -> bool:
        """The environment failed this rollout: its reward is None."""
        return bool(self._episode and self._episode.masked)

    @property
    def error(self) -> str:
        return self._episode.error if self._episode else ""

    @property
    def end_reason(self) -> str:
        return self._episode.end_reason if self._episode else ""

    @property
    def last_observation(self) -> str:
        return self._episode.last.observation if self._episode and self._episode.last else ""

    # --- TRL's contract ---------------------------------------------------------------------------

    def reset(self, task_id: str = "", **row: Any) -> str:
        """Starts this rollout's episode of ``task_id`` and returns the task's prompt; never raises."""
        try:
            return self._reset(str(task_id or row.get("instance_id") or ""), row)
        except Exception as error:  # an exception would end TRL's training step: this rollout is masked instead
            logger.exception("swe_env.trl: reset failed")
            self._episode = _Episode(task_id=str(task_id), episode_id="", masked=True, done=True, error=f"{type(error).__name__}: {error}")
            return self._refused()

    async def get_reward(self) -> Optional[float]:
        """The server's grading of this rollout, or None when the environment failed it. Closes the episode."""
        episode = self._episode
        if episode is None:
            return None
        runtime = self._spec._runtime()
        try:
            await runtime.wait(self._finish(episode))
        except Exception as error:
            self._fail(episode, f"{type(error).__name__}: {error}")
        if episode.started is not None and not episode.closed:
            episode.closed = True
            runtime.close_later(episode.episode_id)
        return None if episode.masked else episode.reward

    # --- the episode ------------------------------------------------------------------------------

    def _reset(self, task_id: str, row: Dict[str, Any]) -> str:
        spec = self._spec
        self._close_previous()
        episode = self._episode = _Episode(task_id=task_id, episode_id=f"trl-{uuid.uuid4().hex}")
        if not task_id:
            self._fail(episode, "the dataset row has no task_id")
            return self._refused()
        runtime = spec._runtime()
        group_id = spec._group_of(task_id, row)
        spec._look_ahead(row, group_id)
        runtime.started(episode.episode_id)  # before the Reset: whatever it starts is closed with the rest
        episode.started = runtime.submit(
            runtime.client.reset(task_id, episode_id=episode.episode_id, group_id=group_id, options=spec.episode_options or None)
        )
        prompt = spec._prompt_of(task_id)
        if prompt is not None:
            return prompt
        # A task the spec did not read: its prompt is Reset's observation, so this one waits.
        try:
            return str(episode.started.result(timeout=spec.reset_timeout_s).observation)
        except Exception as error:
            self._fail(episode, f"{type(error).__name__}: {error}")
            return self._refused()

    def _close_previous(self) -> None:
        previous = self._episode
        if previous is not None and previous.started is not None and not previous.closed:
            previous.closed = True
            self._spec._runtime().close_later(previous.episode_id)

    def _refused(self) -> str:
        episode = self._episode
        return f"[swe-env] the task {episode.task_id if episode else ''!r} could not be started: {episode.error if episode else ''}"

    @staticmethod
    def _fail(episode: _Episode, error: str) -> None:
        episode.masked = episode.done = True
        episode.error = episode.error or error
        episode.end_reason = episode.end_reason or "infra_error"

    async def _ready(self, episode: _Episode) -> bool:
        """Waits (on the runtime's loop) for the episode's Reset; False when it was refused."""
        if episode.started is None:
            return False
        try:
            await asyncio.wrap_future(episode.started)
            return True
        except Exception as error:
            self._fail(episode, f"Reset refused: {type(error).__name__}: {error}")
            return False

    async def _call_tool(self, name: str, arguments: Dict[str, Any]) -> str:
        """One tool call of the model, run as a Step of this rollout's episode."""
        episode = self._episode
        if episode is None:
            return "[swe-env] no episode: reset() was not called"
        runtime = self._spec._runtime()
        if self._spec.defer_grading and name == self._spec.submit_tool and episode.grading is None and not episode.done:
            # GRPOTrainer runs one rollout's tool calls after another's: a submit answered before
            # its grading lets the batch's gradings overlap; get_reward waits for this one.
            episode.grading = runtime.submit(self._step(episode, name, arguments))
            return DEFERRED_SUBMIT
        return await runtime.wait(self._step(episode, name, arguments))

    async def _step(self, episode: _Episode, name: str, arguments: Dict[str, Any]) -> str:
        if episode.lock is None:
            episode.lock = asyncio.Lock()
        async with episode.lock:  # TRL gathers one turn's calls: the shell takes them in order
            if not await self._ready(episode) or episode.done:
                return self._ended(episode)
            try:
                result = await self._spec._runtime().client.step(episode.episode_id, episode.step_index, name, arguments)
            except Exception as error:  # the server could not run the step: the environment's failure
                self._fail(episode, f"Step failed: {type(error).__name__}: {error}")
                return self._ended(episode)
            episode.step_index += 1
            self._record(episode, result)
            text, _ = cut_middle(result.observation, self._spec.max_observation_chars)
            return text

    def _record(self, episode: _Episode, result: StepResult) -> None:
        episode.last = result
        if result.infra_error:
            self._fail(episode, result.observation[-2000:])
        elif result.terminated or result.truncated:
            episode.done = True
            episode.reward = float(result.reward)
            episode.end_reason = str(result.info.get("end_reason") or ("submitted" if result.terminated else "truncated"))

    def _ended(self, episode: _Episode) -> str:
        if episode.masked:
            return f"[swe-env] the environment failed this episode: {episode.error}"
        return f"[swe-env] the episode has ended ({episode.end_reason}); no more tool calls run."

    async def _finish(self, episode: _Episode) -> None:
        """Brings the episode to its reward: graded by a submit (``grade_unsubmitted``) or 0."""
        if episode.grading is not None:
            await asyncio.wrap_future(episode.grading)  # _step catches its own failures
        if not await self._ready(episode) or episode.done:
            return
        if self._spec.grade_unsubmitted and self._spec.submit_tool:
            await self._step(episode, self._spec.submit_tool, {})
            if episode.done:
                return
        episode.done = True
        episode.reward = 0.0
        episode.end_reason = "not_submitted"


__all__ = ["SweEnvRollout"]
