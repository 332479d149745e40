"""The ``swe_env`` agent loop for verl: reset -> generate -> parse the tool call -> step -> ... -> close.

Built on verl's own ``AgentLoopBase`` and its Continuous Token helpers, so prompts and turn
boundaries (the tool-response wrapper, the next assistant header, ``apply_chat_template_kwargs``)
are tokenised exactly as verl's ``ToolAgentLoop`` does. Every path, including every failure, returns
a well-formed ``AgentLoopOutput``: a non-empty prompt that fits ``rollout.prompt_length``, a
non-empty response, log-probs exactly when they were asked for, ``num_turns`` by verl's rule, and
``extra_fields`` with the same keys and types (``EXTRA_FIELDS``), because verl concatenates the
chunks of its agent-loop workers and a missing key or an empty list ends the whole batch.

A sample the environment (or the LLM server, or this loop) failed on is *masked*: its
``response_mask`` is all zeros, so none of its tokens reach the policy loss, and
``extra_fields["swe_env_masked"]`` is True. Its ``reward_score`` is 0.0 only because verl needs a
number; with GRPO use the ``swe_env_grpo`` advantage estimator (``swe_env.verl.advantage``), which
leaves masked samples out of their group's mean and std as well.
"""
from __future__ import annotations

import asyncio
import logging
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from verl.experimental.agent_loop import agent_loop as _verl_agent_loop
from verl.experimental.agent_loop.agent_loop import AgentLoopBase, AgentLoopOutput, register

from ..client.async_client import AsyncSweEnvClient
from ..client.env import to_tool_call
from ..core.errors import SweEnvError
from ..core.results import StepResult
from ..core.text import cut_middle
from .tokens import filler_token
from . import advantage  # noqa: F401  (registers the swe_env_grpo advantage estimator)

logger = logging.getLogger(__name__)

#: The keys this loop puts in ``extra_fields`` on every path, with their types.
EXTRA_FIELDS: Dict[str, type] = {
    "swe_env_task_id": str,
    "swe_env_episode_id": str,  # "" when no episode was started
    "swe_env_end": str,  # submitted | truncated | sandbox_oom | budget | invalid_row | reset_failed | env_error | llm_error | infra_error | internal_error
    "swe_env_status": str,  # the last step's status (OK, TRUNCATED_STEPS, INFRA_ERROR, ...), "" when none
    "swe_env_resolved": bool,
    "swe_env_masked": bool,  # True: keep this sample out of the loss (an environment failure, not the model's)
    "swe_env_error": str,  # what failed, "" when nothing did
    "swe_env_steps": int,  # tool calls the server ran
    "swe_env_prompt_truncated": bool,  # the task prompt (or the tool list) was cut to fit rollout.prompt_length
    "swe_env_observations_truncated": int,  # observations cut to the observation cap
}


# One client per worker process and address list: channels are reused across samples.
_CLIENTS: Dict[Tuple[str, ...], AsyncSweEnvClient] = {}


def _client(addresses: Sequence[str]) -> AsyncSweEnvClient:
    key = tuple(addresses)
    if key not in _CLIENTS:
        _CLIENTS[key] = AsyncSweEnvClient(list(addresses))
    return _CLIENTS[key]


class _LLMError(Exception):
    """The LLM server failed: not the policy's doing, so the sample is masked."""


@dataclass
class _Rollout:
    """The state of one sample: runtime tokens as verl's Continuous Token builder keeps them."""

    task_id: str
    want_logprobs: bool
    request_id: str = field(default_factory=lambda: uuid.uuid4().hex)  # one per trajectory: sticky LLM session
    messages: List[Dict[str, Any]] = field(default_factory=list)
    tools: Optional[List[Dict[str, Any]]] = None
    tokens: List[int] = field(default_factory=list)  # prompt + response so far
    response_mask: List[int] = field(default_factory=list)
    logprobs: List[float] = field(default_factory=list)
    assistant_turns: int = 0
    user_turns: int = 0
    reward: float = 0.0
    metrics: Dict[str, Any] = field(default_factory=lambda: {"generate_sequences": 0.0, "tool_calls": 0.0})
    extra: Dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        defaults = {key: kind() for key, kind in EXTRA_FIELDS.items()}
        self.extra = {**defaults, "swe_env_task_id": self.task_id}

    def end(self, how: str, *, masked: bool = False, error: str = "") -> None:
        self.extra["swe_env_end"] = how
        self.extra["swe_env_masked"] = masked
        if error:
            self.extra["swe_env_error"] = error


class SweEnvAgentLoop(AgentLoopBase):
    """Select it with the dataset column ``agent_name: swe_env`` and the agent-loop YAML
    (``swe_env.verl.config_path("agent_loop.yaml")``). Keyword arguments, next to ``_target_``:

    - ``env_addr``: one address or a comma-separated list (a GRPO group stays on one server);
    - ``max_turns``: assistant turns (default: ``rollout.multi_turn.max_assistant_turns``, else 50);
    - ``max_observation_chars``: the observation cap (default: ``rollout.multi_turn.max_tool_response_length``,
      whose verl default of 256 characters is far too small for shell output: raise it);
    - ``grade_on_budget``: grade the repository when the turn or token budget runs out (else reward 0);
    - ``episode_options``: per-episode server options (``max_steps``, ``command_timeout_s``, ...).
    """

    def __init__(
        self,
        *args: Any,
        env_addr: Any = "127.0.0.1:50051",
        max_turns: Optional[int] = None,
        max_observation_chars: Optional[int] = None,
        grade_on_budget: bool = True,
        episode_options: Optional[Dict[str, Any]] = None,
        **kwargs: Any,
    ) -> None:
        kwargs.pop("tools", None)  # verl's tool list: this loop's tools come from the server
        super().__init__(*args, **kwargs)
        multi_turn = self.rollout_config.multi_turn
        self.addresses: List[str] = [a.strip() for a in env_addr.split(",")] if isinstance(env_addr, str) else [str(a) for a in env_addr]
        self.max_turns = int(max_turns or multi_turn.get("max_assistant_turns") or 50)
        self.max_observation_chars = int(max_observation_chars or multi_turn.get("max_tool_response_length") or 0)
        self.grade_on_budget = bool(grade_on_budget)
        self.episode_options = dict(episode_options or {})
        self.prompt_length = int(self.rollout_config.prompt_length)
        self.response_length = int(self.rollout_config.response_length)

    # --- the loop -------------------------------------------------------------------------------

    async def run(self, sampling_params: Dict[str, Any], **kwargs: Any) -> AgentLoopOutput:
        extra_info = kwargs.get("extra_info") or {}
        task_id = str(extra_info.get("task_id") or kwargs.get("task_id") or "")
        rollout = _Rollout(task_id=task_id, want_logprobs=bool(sampling_params.get("logprobs")))
        client = _client(self.addresses)
        # Chosen before Reset, so a rollout cancelled during Reset can still close its sandbox.
        episode_id = f"verl-{uuid.uuid4().hex}"
        reset_sent = False
        try:
            if not task_id:
                rollout.end("invalid_row", masked=True, error="the dataset row has no extra_info.task_id")
            else:
                reset_sent = True
                group_id = str(kwargs.get("uid") or extra_info.get("group_id") or "")
                reset = await client.reset(task_id, episode_id=episode_id, group_id=group_id, options=self.episode_options or None)
                rollout.extra["swe_env_episode_id"] = episode_id
                rollout.messages = [{"role": "user", "content": reset.observation}]
                rollout.tools = reset.tools
                rollout.tokens = await self._fit_prompt(rollout)
                await self._episode(client, episode_id, rollout, sampling_params)
        except _LLMError as error:
            rollout.end("llm_error", masked=True, error=str(error))
        except SweEnvError as error:
            how = "reset_failed" if not rollout.extra["swe_env_episode_id"] else "env_error"
            rollout.end(how, masked=True, error=f"{type(error).__name__}: {error}")
        except Exception as error:  # a bug here must not end verl's whole batch: mask and say what
            logger.exception("swe_env agent loop failed on task %s", task_id)
            rollout.end("internal_error", masked=True, error=f"{type(error).__name__}: {error}")
        finally:
            if reset_sent:
                await self._close(client, episode_id, rollout)
        if rollout.extra["swe_env_masked"]:
            logger.warning("swe_env sample masked (%s) on task %s: %s", rollout.extra["swe_env_end"], task_id, rollout.extra["swe_env_error"])
        return await self._output(rollout, kwargs)

    async def _episode(self, client: AsyncSweEnvClient, episode_id: str, rollout: _Rollout, sampling_params: Dict[str, Any]) -> None:
        step_index = 0
        while rollout.assistant_turns < self.max_turns:
            text = await self._generate(rollout, sampling_params)
            if len(rollout.response_mask) >= self.response_length:
                break
            call, _ = to_tool_call(text)
            rollout.messages.append(_assistant_message(text, call.name, call.arguments))
            started = time.perf_counter()
            result = await client.step(episode_id, step_index, call.name, call.arguments, assistant={"content": text})
            rollout.metrics["tool_calls"] += time.perf_counter() - started
            step_index += 1
            rollout.extra["swe_env_steps"] = step_index
            if self._finished(result, rollout):
                return
            if not await self._append_observation(rollout, result.observation):
                break
        # The turn or token budget ran out before the model submitted.
        if not self.grade_on_budget:
            rollout.end("budget")
            return
        result = await client.step(episode_id, step_index, "submit_solution", {})
        rollout.extra["swe_env_steps"] = step_index + 1
        if not self._finished(result, rollout):
            rollout.end("internal_error", masked=True, error=f"submit_solution did not end the episode (status {result.status})")
        elif not rollout.extra["swe_env_masked"]:
            rollout.extra["swe_env_end"] = "budget"

    def _finished(self, result: StepResult, rollout: _Rollout) -> bool:
        rollout.extra["swe_env_status"] = result.status
        if result.infra_error:
            rollout.end("infra_error", masked=True, error=result.observation[-2000:])
            return True
        if not (result.terminated or result.truncated):
            return False
        rollout.reward = float(result.reward)
        rollout.extra["swe_env_resolved"] = bool((result.report or {}).get("resolved", False))
        # The server names ends other than a submit or a limit (e.g. sandbox_oom) in the step's info.
        rollout.end(str(result.info.get("end_reason") or ("submitted" if result.terminated else "truncated")))
        return True

    async def _generate(self, rollout: _Rollout, sampling_params: Dict[str, Any]) -> str:
        started = time.perf_counter()
        try:
            output = await self.server_manager.generate(
                request_id=rollout.request_id,
                prompt_ids=rollout.tokens,
                sampling_params=sampling_params,
            )
        except asyncio.CancelledError:
            raise
        except Exception as error:
            raise _LLMError(f"generate failed on turn {rollout.assistant_turns + 1}: {type(error).__name__}: {error}") from error
        finally:
            rollout.metrics["generate_sequences"] += time.perf_counter() - started
        model_ids = list(output.token_ids)
        if output.num_preempted is not None:
            rollout.metrics["num_preempted"] = max(0, rollout.metrics.get("num_preempted", 0)) + int(output.num_preempted)
        for key in ("min_global_steps", "max_global_steps"):  # keys verl's post-processing always carries
            if key in (output.extra_fields or {}):
                rollout.extra[key] = output.extra_fields[key]
        assistant_logprobs: Optional[List[float]] = None
        if rollout.want_logprobs:
            assistant_logprobs = list(output.log_probs or [])
            if len(assistant_logprobs) != len(model_ids):
                raise _LLMError(f"the LLM server returned {len(assistant_logprobs)} log-probs for {len(model_ids)} tokens")
        merged, mask, logprobs = await self.ct_merge_assistant_token(
            rollout.tokens,
            model_ids,
            rollout.response_mask,
            rollout.logprobs if rollout.want_logprobs else None,
            assistant_logprobs=assistant_logprobs,
        )
        rollout.tokens, rollout.response_mask = merged.token_ids, mask
        if logprobs is not None:
            rollout.logprobs = logprobs
        rollout.assistant_turns += 1
        return await self.loop.run_in_executor(None, lambda: self.tokenizer.decode(model_ids, skip_special_tokens=False))

    async def _append_observation(self, rollout: _Rollout, observation: str) -> bool:
        """Tokenises the tool message and the next assistant header as verl does; False when the
        response budget has no room for them."""
        content, cut = cut_middle(observation, self.max_observation_chars)
        if cut:
            rollout.extra["swe_env_observations_truncated"] += 1
        previous = list(rollout.messages)
        rollout.messages.append({"role": "tool", "content": content})
        merged, mask, logprobs = await self.ct_merge_context_msg(
            previous,
            rollout.messages,
            rollout.tokens,
            rollout.response_mask,
            rollout.logprobs if rollout.want_logprobs else None,
            tools=rollout.tools,
        )
        if len(mask) >= self.response_length:
            rollout.messages.pop()
            return False
        rollout.tokens, rollout.response_mask = merged.token_ids, mask
        if logprobs is not None:
            rollout.logprobs = logprobs
        rollout.user_turns += 1
        return True

    # --- prompt fitting -------------------------------------------------------------------------

    async def _render_prompt(self, messages: List[Dict[str, Any]], tools: Optional[List[Dict[str, Any]]]) -> List[int]:
        """verl's own initial-prompt rendering, without its silent left truncation (which would cut
        the chat template's preamble and the tool list first)."""
        builder = self.continuous_token_builder
        return await self.loop.run_in_executor(None, lambda: builder.build_initial_tokens(messages, tools=tools))

    async def _fit_prompt(self, rollout: _Rollout) -> List[int]:
        """The first prompt within rollout.prompt_length: the task text's middle is cut first (the
        tool schemas and the chat template's preamble stay whole), the tool list dropped last."""
        content = str(rollout.messages[0]["content"])
        ids = await self._render_prompt(rollout.messages, rollout.tools)
        for _ in range(6):
            if len(ids) <= self.prompt_length or not content:
                break
            rollout.extra["swe_env_prompt_truncated"] = True
            keep = int(len(content) * self.prompt_length / len(ids) * 0.9) - 64
            content, _ = cut_middle(content, max(0, keep))
            rollout.messages[0] = {"role": "user", "content": content}
            ids = await self._render_prompt(rollout.messages, rollout.tools)
        if len(ids) > self.prompt_length and rollout.tools:
            # The tool schemas alone overflow: the prompt still names the tools in its text.
            rollout.tools = None
            ids = await self._render_prompt(rollout.messages, None)
        if len(ids) > self.prompt_length:
            ids = self._cap_text_prompt_length(ids)  # verl's own last resort (left truncation)
        return ids

    # --- the output verl gets -------------------------------------------------------------------

    async def _output(self, rollout: _Rollout, kwargs: Dict[str, Any]) -> AgentLoopOutput:
        n = len(rollout.response_mask)
        if rollout.tokens and n < len(rollout.tokens):
            prompt_ids, response_ids = rollout.tokens[: len(rollout.tokens) - n], rollout.tokens[len(rollout.tokens) - n :]
            response_mask, logprobs = list(rollout.response_mask), list(rollout.logprobs)
        else:  # failed before any prompt: the dataset's own prompt, and a one-token masked response
            prompt_ids = await self._fallback_prompt(kwargs)
            response_ids, response_mask, logprobs = [self._filler_token()], [0], [0.0]
        if not response_ids:
            response_ids, response_mask, logprobs = [self._filler_token()], [0], [0.0]
        if rollout.extra["swe_env_masked"]:
            response_mask = [0] * len(response_mask)
        response_ids = response_ids[: self.response_length]
        response_mask = response_mask[: self.response_length]
        logprobs = (logprobs + [0.0] * len(response_ids))[: len(response_ids)]
        extra = {key: EXTRA_FIELDS[key](rollout.extra[key]) for key in EXTRA_FIELDS}
        for key in ("min_global_steps", "max_global_steps"):
            if key in rollout.extra:
                extra[key] = rollout.extra[key]
        metrics = {"generate_sequences": rollout.metrics["generate_sequences"], "tool_calls": rollout.metrics["tool_calls"]}
        if "num_preempted" in rollout.metrics:
            metrics["num_preempted"] = rollout.metrics["num_preempted"]
        return AgentLoopOutput(
            prompt_ids=prompt_ids,
            response_ids=response_ids,
            response_mask=response_mask,
            response_logprobs=logprobs if rollout.want_logprobs else None,
            reward_score=float(rollout.reward),
            # verl's rule (ToolAgentLoop): user (tool-response) turns + assistant turns + the prompt.
            num_turns=rollout.user_turns + rollout.assistant_turns + 1,
            metrics=metrics,
            extra_fields=extra,
        )

    async def _fallback_prompt(self, kwargs: Dict[str, Any]) -> List[int]:
        raw = kwargs.get("raw_prompt")
        messages = [dict(m) for m in raw] if raw is not None and len(raw) else [{"role": "user", "content": ""}]
        try:
            return self._cap_text_prompt_length(await self.ct_build_initial_tokens(messages)) or [self._filler_token()]
        except Exception:  # the row's own prompt does not render: one filler token still pads
            logger.exception("swe_env: the dataset prompt could not be tokenised")
            return [self._filler_token()]

    def _filler_token(self) -> int:
        return filler_token(self.tokenizer)

    async def _close(self, client: AsyncSweEnvClient, episode_id: str, rollout: _Rollout) -> None:
        # Shielded: a cancelled rollout still closes its sandbox (Close waits for a Reset in flight).
        try:
            await asyncio.shield(client.close(episode_id, timeout_s=60.0))
        except asyncio.CancelledError:
            raise
        except SweEnvError as error:
            if rollout.extra["swe_env_episode_id"]:  # NOT_FOUND for a Reset that never started is fine
                logger.warning("swe_env: closing %s failed (the server's idle timeout reclaims it): %s", episode_id, error)
        except Exception as error:
            logger.warning("swe_env: closing %s failed: %s", episode_id, error)


# verl's register() overwrites: when the agent-loop YAML registered "swe_env" first (with env_addr and
# the other settings), hydra's import of this module must not replace that entry with a bare one.
if "swe_env" not in _verl_agent_loop._agent_loop_registry:
    register("swe_env")(SweEnvAgentLoop)


def _assistant_message(text: str, name: str, arguments: Union[Dict[str, Any], str]) -> Dict[str, Any]:
    message: Dict[str, Any] = {"role": "assistant", "content": text}
    if name:
        message["tool_calls"] = [{"type": "function", "function": {"name": name, "arguments": arguments}}]
    return message


__all__ = ["EXTRA_FIELDS", "SweEnvAgentLoop", "cut_middle"]
