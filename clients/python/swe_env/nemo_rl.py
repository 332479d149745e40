"""A NeMo-RL environment over swe-env (``nemo_rl.environments.interfaces.EnvironmentInterface``).

One episode per sample, named in the sample's metadata (``extra_env_info``); the steps of a batch
run concurrently, and so do the batches of async rollouts (``SweEnvActor`` is an asyncio Ray actor
whose ``step`` is a coroutine, ``max_concurrency`` 256). The model's tool call is parsed from the assistant text.

NeMo-RL tokenises an observation's content as it is and appends it to the sequence, so the content
must carry the chat template's own turn structure. Given a tokenizer (``cfg["tokenizer"]``, a name
or path for ``AutoTokenizer``), each observation is rendered by the template: the end of the
assistant turn (when the model stopped at a stop string before it), the tool-response wrapper and
the next assistant header, exactly what the model would see in verl.

What NeMo-RL does with what this returns (read from NVIDIA-NeMo/RL 7ea279ab, rollouts.py): the
metadata of a sample that terminates is not kept, and ``global_post_process_and_metrics`` is not
called by its GRPO loop. The final info (reward, resolved, end reason, ``swe_env_masked``) is
therefore put in the final step's metadata *and* kept by the actor; call
``global_post_process_and_metrics(batch)`` on the rollout batch to merge it into
``batch["extra_env_info"]`` and set ``batch["mask_sample"]``, which NeMo-RL's GRPO honours by
zeroing ``loss_multiplier`` for samples the environment failed on.

NeMo-RL never tells an environment that it stopped a sample. ``global_post_process_and_metrics``
finds the samples of the batch whose episode is still open (their last metadata names it), closes
those episodes, and says why the rollout stopped each: truncated by NeMo-RL (``batch["truncated"]``)
or out of turns (``max_rollout_turns`` reached): the model's own failure, reward 0, trained;
otherwise the rollout dropped it, which NeMo-RL's async rollout does when generation raises (it
catches the error and ends the sample with the reward so far): ``llm_error``, masked. Its sync
rollout lets a generation error raise out of ``run_multi_turn_rollout``: no batch is left to mask,
and NeMo-RL's training scripts call ``shutdown_environments`` (each environment's ``shutdown``) in
their ``finally``, where this environment closes every episode it still has open.
"""
from __future__ import annotations

import asyncio
import hashlib
import logging
import threading
import uuid
from collections import OrderedDict
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple

from .client.async_client import AsyncSweEnvClient
from .client.env import to_tool_call
from .core.errors import SweEnvError
from .core.results import StepResult
from .core.text import cut_middle

logger = logging.getLogger(__name__)

try:  # pragma: no cover - NeMo-RL is not on PyPI; without it the same shapes are defined here
    from nemo_rl.environments.interfaces import EnvironmentInterface, EnvironmentReturn  # type: ignore
except ImportError:
    EnvironmentInterface = object  # type: ignore[misc,assignment]

    class EnvironmentReturn(NamedTuple):  # type: ignore[no-redef]
        observations: List[Dict[str, str]]
        metadata: List[Any]
        next_stop_strings: List[Any]
        rewards: Any
        terminateds: Any
        answers: List[Any]


_MARK = "\u2063swe-env-assistant-end\u2063"
_FINISHED_KEPT = 100_000


def _as_list(value: Any) -> List[Any]:
    return list(value.tolist()) if hasattr(value, "tolist") else list(value)


def _tensor(values: List[Any], dtype: Any = None) -> Any:
    try:
        import torch  # type: ignore

        return torch.tensor(values, dtype=dtype) if dtype is not None else torch.tensor(values)
    except ImportError:
        return values


def sample_key(task_id: str, messages: Sequence[Dict[str, Any]]) -> str:
    """Identifies a trajectory by its task and the assistant's turns (what NeMo-RL's batch keeps)."""
    digest = hashlib.sha256(task_id.encode())
    for message in messages:
        if message.get("role") == "assistant":
            digest.update(b"\0" + str(message.get("content", "")).encode())
    return digest.hexdigest()


class ObservationRenderer:
    """Renders a tool observation as the chat template's continuation after an assistant turn."""

    def __init__(self, tokenizer: Any, chat_template_kwargs: Optional[Dict[str, Any]] = None) -> None:
        self.tokenizer = tokenizer
        self.kwargs = dict(chat_template_kwargs or {})

    def render(self, assistant_text: str, observation: str) -> str:
        messages = [{"role": "user", "content": "u"}, {"role": "assistant", "content": _MARK}, {"role": "tool", "content": observation}]
        full = self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True, **self.kwargs)
        delta = full[full.rindex(_MARK) + len(_MARK) :]
        # The part of the template's assistant-turn ending the model already produced is not repeated.
        for k in range(min(len(delta), len(assistant_text)), 1, -1):
            if assistant_text.endswith(delta[:k]) and "<" in delta[:k]:
                return delta[k:]
        return delta


class SweEnvEnvironment(EnvironmentInterface):  # type: ignore[misc]
    """Config keys: ``addresses`` (list or comma-separated), ``episode_options``, ``tokenizer`` (name
    or path: observations rendered with its chat template; without it the raw text is returned),
    ``chat_template_kwargs``, ``observation_role`` (default "tool"), ``stop_strings`` (default
    ["</tool_call>"]), ``max_observation_chars`` (default 16384), ``max_rollout_turns`` (NeMo-RL's
    ``grpo.max_rollout_turns``: tells a sample out of turns, the model's failure, from one the
    rollout dropped after a generation error; unset, every unfinished sample that NeMo-RL did not
    truncate is masked), ``task_name`` (default "swe_env": the key of this environment in NeMo-RL's
    ``task_to_env``; the post-process touches only samples of that name, or those whose episode it
    opened)."""

    def __init__(self, cfg: Optional[Dict[str, Any]] = None) -> None:
        cfg = dict(cfg or {})
        addresses = cfg.get("addresses", "127.0.0.1:50051")
        self.addresses: List[str] = [a.strip() for a in addresses.split(",")] if isinstance(addresses, str) else list(addresses)
        self.episode_options = dict(cfg.get("episode_options") or {})
        self.observation_role = str(cfg.get("observation_role", "tool"))
        self.stop_strings = list(cfg.get("stop_strings", ["</tool_call>"]))
        self.max_observation_chars = int(cfg.get("max_observation_chars", 16384))
        self.max_rollout_turns = int(cfg["max_rollout_turns"]) if cfg.get("max_rollout_turns") else None
        # The name NeMo-RL's task_to_env gives this environment: a batch may hold other environments'
        # samples (two swe_env environments, or a math one), which are not this one's to close or mask.
        self.task_name = str(cfg.get("task_name", "swe_env"))
        self.renderer: Optional[ObservationRenderer] = None
        if cfg.get("tokenizer"):
            from transformers import AutoTokenizer  # type: ignore

            tokenizer = cfg["tokenizer"] if not isinstance(cfg["tokenizer"], str) else AutoTokenizer.from_pretrained(cfg["tokenizer"])
            self.renderer = ObservationRenderer(tokenizer, cfg.get("chat_template_kwargs"))
        self._finished: "OrderedDict[str, Dict[str, Any]]" = OrderedDict()
        self._finished_episodes: "OrderedDict[str, Dict[str, Any]]" = OrderedDict()
        self._open: Dict[str, str] = {}  # episode id -> task id, touched on the private loop only
        self._finished_lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="swe-env-nemo", daemon=True)
        self._thread.start()
        self.client = AsyncSweEnvClient(self.addresses)

    def _run(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    def _observation(self, messages: List[Dict[str, Any]], text: str) -> Dict[str, str]:
        text, _ = cut_middle(text, self.max_observation_chars)
        if self.renderer is not None:
            last = next((m for m in reversed(messages) if m.get("role") == "assistant"), {})
            text = self.renderer.render(str(last.get("content", "")), text)
        return {"role": self.observation_role, "content": text}

    async def _one(self, messages: List[Dict[str, Any]], meta: Dict[str, Any]) -> Tuple[Dict[str, str], Dict[str, Any], float, bool]:
        meta = dict(meta)
        task_id = str(meta.get("task_id", ""))
        try:
            if not meta.get("episode_id"):
                if not task_id:
                    raise ValueError("the sample's extra_env_info has no task_id")
                # Chosen before Reset and kept in the metadata: a retried Reset is the same episode.
                episode_id = f"nemo-{uuid.uuid4().hex}"
                self._open[episode_id] = task_id  # before Reset: whatever it starts is closed with the rest
                meta["episode_id"] = episode_id
                await self.client.reset(task_id, episode_id=episode_id, group_id=str(meta.get("group_id", "")), options=self.episode_options or None)
                meta["episode_id"], meta["step_index"] = episode_id, 0
            last = next((m for m in reversed(messages) if m.get("role") == "assistant"), None)
            text = str(last.get("content", "")) if last else ""
            call, _ = to_tool_call(text)
            result: StepResult = await self.client.step(meta["episode_id"], int(meta.get("step_index", 0)), call.name, call.arguments, assistant={"content": text})
            meta["step_index"] = int(meta.get("step_index", 0)) + 1
            meta["status"] = result.status
            done = result.terminated or result.truncated or result.infra_error
            if done:
                meta.update(
                    swe_env_reward=float(result.reward),
                    swe_env_resolved=bool((result.report or {}).get("resolved", False)),
                    swe_env_end="infra_error" if result.infra_error else str(result.info.get("end_reason") or ("submitted" if result.terminated else "truncated")),
                    swe_env_masked=result.infra_error,
                    swe_env_error=result.observation[-2000:] if result.infra_error else "",
                )
                await self._finish(messages, meta)
            return self._observation(messages, result.observation), meta, float(result.reward) if not result.infra_error else 0.0, done
        except Exception as error:  # an environment failure ends the sample, masked, and says so
            if not isinstance(error, SweEnvError):
                logger.exception("swe_env NeMo-RL step failed")
            meta.update(swe_env_reward=0.0, swe_env_resolved=False, swe_env_end="env_error", swe_env_masked=True, swe_env_error=f"{type(error).__name__}: {error}")
            await self._finish(messages, meta)
            return {"role": self.observation_role, "content": f"[swe-env error] {error}"}, meta, 0.0, True

    async def _finish(self, messages: Optional[List[Dict[str, Any]]], meta: Dict[str, Any]) -> None:
        with self._finished_lock:
            if messages is not None:
                self._finished[sample_key(str(meta.get("task_id", "")), messages)] = dict(meta)
            if meta.get("episode_id"):
                self._finished_episodes[str(meta["episode_id"])] = dict(meta)
            for kept in (self._finished, self._finished_episodes):
                while len(kept) > _FINISHED_KEPT:
                    kept.popitem(last=False)
        if meta.get("episode_id"):
            self._open.pop(str(meta["episode_id"]), None)
            await self._close(str(meta["episode_id"]))

    async def _close(self, episode_id: str) -> None:
        try:
            await self.client.close(episode_id)
        except Exception as error:  # the server's idle timeout reclaims it
            logger.warning("swe_env: closing %s failed: %s", episode_id, error)

    async def _close_open(self) -> int:
        """Closes every episode this environment still has open (a rollout that raised left them)."""
        episode_ids = list(self._open)
        self._open.clear()
        await asyncio.gather(*(self._close(e) for e in episode_ids))
        return len(episode_ids)

    async def _stopped_by_rollout(self, info: Dict[str, Any], truncated: bool) -> Dict[str, Any]:
        """The final info of a sample whose episode the rollout left open, which it closes."""
        steps = int(info.get("step_index", 0))
        if truncated:
            end, masked, error = "truncated", False, ""  # NeMo-RL cut it at its token budget: the model's
        elif self.max_rollout_turns is not None and steps >= self.max_rollout_turns:
            end, masked, error = "max_turns", False, ""  # out of turns: the model's
        else:
            end, masked = "llm_error", True
            error = (
                f"the rollout stopped this sample after {steps} step(s), before the environment ended it, without "
                "truncating it and short of max_rollout_turns: NeMo-RL's async rollout does so when generation raises"
            )
        final = dict(info, swe_env_reward=0.0, swe_env_resolved=False, swe_env_end=end, swe_env_masked=masked, swe_env_error=error)
        await self._finish(None, final)
        return final

    async def _batch(self, message_log_batch: Sequence[List[Dict[str, Any]]], metadata: Sequence[Dict[str, Any]]) -> List[Tuple[Dict[str, str], Dict[str, Any], float, bool]]:
        return list(await asyncio.gather(*(self._one(list(m), dict(meta or {})) for m, meta in zip(message_log_batch, metadata))))

    def step(self, message_log_batch: Sequence[List[Dict[str, Any]]], metadata: Sequence[Dict[str, Any]]) -> EnvironmentReturn:
        return self._return(self._run(self._batch(message_log_batch, metadata)))

    def _return(self, results: List[Tuple[Dict[str, str], Dict[str, Any], float, bool]]) -> EnvironmentReturn:
        return EnvironmentReturn(
            observations=[r[0] for r in results],
            metadata=[r[1] for r in results],
            next_stop_strings=[self.stop_strings for _ in results],
            rewards=_tensor([r[2] for r in results]),
            terminateds=_tensor([bool(r[3]) for r in results]),
            answers=[None for _ in results],
        )

    def final_info(self, task_id: str, messages: Sequence[Dict[str, Any]], episode_id: str = "") -> Optional[Dict[str, Any]]:
        """The final metadata of a finished trajectory (NeMo-RL drops it from its batch)."""
        with self._finished_lock:
            found = self._finished.get(sample_key(task_id, messages))
            return found if found is not None or not episode_id else self._finished_episodes.get(episode_id)

    def global_post_process_and_metrics(self, batch: Any) -> Tuple[Any, Dict[str, Any]]:
        """Merges each finished sample's final info into ``batch["extra_env_info"]``, closes the
        episodes of samples the rollout stopped (see the module's docstring), sets
        ``batch["mask_sample"]`` (NeMo-RL's GRPO zeroes the loss of those samples), and returns
        resolved / masked rates."""
        infos = list(batch["extra_env_info"])
        logs = list(batch["message_log"])
        truncated = list(batch["truncated"]) if "truncated" in batch else [False] * len(infos)
        names = list(batch["task_name"]) if "task_name" in batch else [self.task_name] * len(infos)
        # Another environment's post-process may have run first: its samples keep what it said.
        prior = [bool(m) for m in _as_list(batch["mask_sample"])] if "mask_sample" in batch else [False] * len(infos)
        episode_ids = [str(dict(info or {}).get("episode_id") or "") for info in infos]
        opened = self._run(self._opened(episode_ids))
        masked: List[bool] = []
        resolved = 0
        finals: List[Optional[Dict[str, Any]]] = []
        stopped: List[int] = []
        ours: List[bool] = []
        for i, (info, log) in enumerate(zip(infos, logs)):
            info = dict(info or {})
            episode_id = episode_ids[i]
            finals.append(self.final_info(str(info.get("task_id", "")), log, episode_id))
            ours.append(finals[i] is not None or opened[i] or (not episode_id and str(names[i]) == self.task_name))
            if finals[i] is None and opened[i]:  # still open: the rollout stopped it without a word
                stopped.append(i)
            elif ours[i] and finals[i] is None:
                # No episode at all: generation failed before the first tool call reached the server.
                finals[i] = dict(
                    info, swe_env_reward=0.0, swe_env_resolved=False, swe_env_end="llm_error", swe_env_masked=True,
                    swe_env_error="the rollout stopped this sample before its first step reached the environment (a generation error)",
                )

        async def close_stopped() -> List[Dict[str, Any]]:
            return list(await asyncio.gather(*(self._stopped_by_rollout(dict(infos[i] or {}), bool(truncated[i])) for i in stopped)))

        if stopped:
            for i, final in zip(stopped, self._run(close_stopped())):
                finals[i] = final
        for i, final in enumerate(finals):
            if not ours[i]:
                masked.append(prior[i])
                continue
            if final is not None:
                infos[i] = final
            masked.append(bool((final or {}).get("swe_env_masked", False)))
            resolved += int(bool((final or {}).get("swe_env_resolved", False)))
        batch["extra_env_info"] = infos
        batch["mask_sample"] = _tensor(masked, dtype=_bool_dtype())
        n = max(1, sum(ours))
        masked_ours = sum(1 for i, m in enumerate(masked) if m and ours[i])
        return batch, {"swe_env/resolved_rate": resolved / n, "swe_env/masked_rate": masked_ours / n, "swe_env/masked": masked_ours}

    async def _opened(self, episode_ids: Sequence[str]) -> List[bool]:
        """Which of these episodes this environment opened and has not closed (read on its loop)."""
        return [bool(e) and e in self._open for e in episode_ids]

    def close_open_episodes(self) -> int:
        """Closes every episode still open and returns how many (``shutdown`` does it first)."""
        return int(self._run(self._close_open()))

    def shutdown(self) -> None:
        """Closes every episode still open (NeMo-RL's ``shutdown_environments``, which its training
        scripts run in ``finally``, calls this after a rollout raised), then the channels, then stops
        the private event loop."""
        try:
            try:
                self.close_open_episodes()
            except Exception as error:  # the server's idle timeout reclaims them
                logger.warning("swe_env: closing the open episodes failed: %s", error)
            self._run(self.client.aclose())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=5)
            if not self._thread.is_alive():
                self._loop.close()


def _bool_dtype() -> Any:
    try:
        import torch  # type: ignore

        return torch.bool
    except ImportError:
        return None


def prefetching(dataloader: Any, cfg: Optional[Dict[str, Any]] = None, lookahead: int = 1) -> Any:
    """NeMo-RL's GRPO loop iterates its dataloader (``for batch in dataloader``) and tells an
    environment nothing of the next batch: wrap the dataloader given to ``grpo_train`` so that the
    images of batches k+1 .. k+lookahead are pulled while batch k runs (``swe_env.BatchPrefetcher``;
    the task ids from each sample's ``extra_env_info``). ``cfg``: this environment's config
    (``addresses``)."""
    from .client.batch_prefetch import BatchPrefetcher

    addresses = (cfg or {}).get("addresses", "127.0.0.1:50051")
    return BatchPrefetcher([a.strip() for a in addresses.split(",")] if isinstance(addresses, str) else list(addresses), dataloader, lookahead=lookahead)


def register(env_name: str = "swe_env") -> None:
    """Registers ``SweEnvActor`` with NeMo-RL under ``env_name`` (and its actor python environment),
    so ``create_env(env_name, cfg)`` and an ``env_name`` in a data config find it."""
    from nemo_rl.distributed.ray_actor_environment_registry import ACTOR_ENVIRONMENT_REGISTRY  # type: ignore
    from nemo_rl.distributed.virtual_cluster import PY_EXECUTABLES  # type: ignore
    from nemo_rl.environments.utils import register_env  # type: ignore

    ACTOR_ENVIRONMENT_REGISTRY[ACTOR_FQN] = PY_EXECUTABLES.SYSTEM
    register_env(env_name, ACTOR_FQN)


ACTOR_FQN = "swe_env.nemo_rl.SweEnvActor"


class _ActorEnvironment(SweEnvEnvironment):
    """The class behind ``SweEnvActor``. Ray runs a class with any ``async def`` method as an asyncio
    actor, whose synchronous methods block its one event loop: a synchronous ``step`` would serve
    NeMo-RL's concurrent async rollouts one batch at a time. Here ``step`` is a coroutine that
    awaits the batch on the environment's own loop, so batches overlap."""

    async def step(self, message_log_batch: Sequence[List[Dict[str, Any]]], metadata: Sequence[Dict[str, Any]]) -> EnvironmentReturn:  # type: ignore[override]
        future = asyncio.run_coroutine_threadsafe(self._batch(message_log_batch, metadata), self._loop)
        return self._return(await asyncio.wrap_future(future))


try:  # pragma: no cover - depends on the environment
    import ray  # type: ignore

    # Restarts are safe: episodes live in the samples' metadata and a retried step returns its
    # recorded result.
    SweEnvActor = ray.remote(max_concurrency=256, max_restarts=-1, max_task_retries=-1)(_ActorEnvironment)
except ImportError:
    SweEnvActor = None
