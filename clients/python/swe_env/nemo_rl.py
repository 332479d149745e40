"""A NeMo-RL environment over swe-env (nemo_rl.environments.interfaces.EnvironmentInterface).

One episode per sample, kept in the sample's metadata; a batch's steps run concurrently; the
model's tool call is parsed from the assistant text; finished episodes are closed. NeMo-RL never
says when it truncates a sample: the server's idle TTL reclaims those episodes. Works as a Ray
actor (``SweEnvActor``) where ray is installed; importable without NeMo-RL, ray or torch.
"""
from __future__ import annotations

import asyncio
import threading
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple

from .client import AsyncSweEnvClient, StepResult
from .env import to_tool_call

try:  # pragma: no cover - depends on the environment
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


def _tensor(values: List[float]) -> Any:
    try:
        import torch  # type: ignore

        return torch.tensor(values)
    except ImportError:
        return values


class SweEnvEnvironment(EnvironmentInterface):  # type: ignore[misc]
    """Config keys: ``addresses`` (list or comma-separated), ``episode_options``, ``observation_role``
    (default "tool"), ``stop_strings`` (returned as next_stop_strings, default ["</tool_call>"])."""

    def __init__(self, cfg: Optional[Dict[str, Any]] = None) -> None:
        cfg = dict(cfg or {})
        addresses = cfg.get("addresses", "127.0.0.1:50051")
        self.addresses: List[str] = [a.strip() for a in addresses.split(",")] if isinstance(addresses, str) else list(addresses)
        self.episode_options = dict(cfg.get("episode_options") or {})
        self.observation_role = str(cfg.get("observation_role", "tool"))
        self.stop_strings = cfg.get("stop_strings", ["</tool_call>"])
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="swe-env-nemo", daemon=True)
        self._thread.start()
        self.client = AsyncSweEnvClient(self.addresses)

    def _run(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    async def _one(self, messages: List[Dict[str, Any]], meta: Dict[str, Any]) -> Tuple[Dict[str, str], Dict[str, Any], float, bool]:
        meta = dict(meta)
        try:
            if not meta.get("episode_id"):
                reset = await self.client.reset(meta["task_id"], group_id=str(meta.get("group_id", "")), options=self.episode_options or None)
                meta["episode_id"], meta["step_index"] = reset.episode_id, 0
            last = next((m for m in reversed(messages) if m.get("role") == "assistant"), None)
            call, _ = to_tool_call(str(last.get("content", "")) if last else "")
            result: StepResult = await self.client.step(meta["episode_id"], int(meta.get("step_index", 0)), call.name, call.arguments)
            meta["step_index"] = int(meta.get("step_index", 0)) + 1
            meta["status"] = result.status
            done = result.terminated or result.truncated
            if result.infra_error:
                meta["infra_error"] = result.observation
            if done:
                meta["resolved"] = bool((result.report or {}).get("resolved", False))
                await self.client.close(meta["episode_id"])
            return {"role": self.observation_role, "content": result.observation}, meta, float(result.reward), done
        except Exception as error:  # an environment failure ends the sample with 0 and says so
            meta["error"] = f"{type(error).__name__}: {error}"
            if meta.get("episode_id"):
                try:
                    await self.client.close(meta["episode_id"])
                except Exception:
                    pass
            return {"role": self.observation_role, "content": f"[swe-env error] {error}"}, meta, 0.0, True

    async def _batch(self, message_log_batch: Sequence[List[Dict[str, Any]]], metadata: Sequence[Dict[str, Any]]) -> List[Tuple[Dict[str, str], Dict[str, Any], float, bool]]:
        return list(await asyncio.gather(*(self._one(list(m), dict(meta)) for m, meta in zip(message_log_batch, metadata))))

    def step(self, message_log_batch: Sequence[List[Dict[str, Any]]], metadata: Sequence[Dict[str, Any]]) -> EnvironmentReturn:
        results = self._run(self._batch(message_log_batch, metadata))
        return EnvironmentReturn(
            observations=[r[0] for r in results],
            metadata=[r[1] for r in results],
            next_stop_strings=[self.stop_strings for _ in results],
            rewards=_tensor([r[2] for r in results]),
            terminateds=_tensor([bool(r[3]) for r in results]),
            answers=[None for _ in results],
        )

    def global_post_process_and_metrics(self, batch: Any) -> Tuple[Any, Dict[str, Any]]:
        return batch, {}

    def shutdown(self) -> None:
        """Closes the channels, then stops the private event loop."""
        try:
            self._run(self.client.aclose())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=5)
            if not self._thread.is_alive():
                self._loop.close()


try:  # pragma: no cover - depends on the environment
    import ray  # type: ignore

    SweEnvActor = ray.remote(SweEnvEnvironment)
except ImportError:
    SweEnvActor = None
