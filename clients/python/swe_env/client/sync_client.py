"""The synchronous facade over AsyncSweEnvClient: the same calls, run on a private event loop thread."""
from __future__ import annotations

from typing import Any, Awaitable, Callable, Dict, List, Optional, Sequence, TypeVar, Union

from ..core.loop import LoopThread
from ..core.results import ResetResult, StepResult
from ..fleet.prefetch import PrefetchResult
from .async_client import AsyncSweEnvClient
from .branching import ForkResult, ReplayResult

T = TypeVar("T")


class SweEnvClient:
    """Synchronous facade: the same calls as AsyncSweEnvClient (``aio``, the client it holds), run
    on a private event loop."""

    def __init__(self, addresses: Union[str, Sequence[str]] = "127.0.0.1:50051", **kwargs: Any) -> None:
        self.aio = AsyncSweEnvClient(addresses, **kwargs)
        self._loop = LoopThread()

    def _run(self, fn: Callable[..., Awaitable[T]], *args: Any, **kwargs: Any) -> T:
        return self._loop.run(fn(*args, **kwargs))

    def list_tasks(self, *args: Any, **kwargs: Any) -> List[Dict[str, Any]]:
        return self._run(self.aio.list_tasks, *args, **kwargs)

    def get_task(self, *args: Any, **kwargs: Any) -> Dict[str, Any]:
        return self._run(self.aio.get_task, *args, **kwargs)

    def reset(self, *args: Any, **kwargs: Any) -> ResetResult:
        return self._run(self.aio.reset, *args, **kwargs)

    def step(self, *args: Any, **kwargs: Any) -> StepResult:
        return self._run(self.aio.step, *args, **kwargs)

    def close(self, *args: Any, **kwargs: Any) -> Dict[str, Any]:
        return self._run(self.aio.close, *args, **kwargs)

    def evaluate(self, *args: Any, **kwargs: Any) -> Dict[str, Any]:
        return self._run(self.aio.evaluate, *args, **kwargs)

    def prewarm(self, *args: Any, **kwargs: Any) -> Dict[str, Any]:
        return self._run(self.aio.prewarm, *args, **kwargs)

    def prewarm_batch(self, *args: Any, **kwargs: Any) -> List[Dict[str, Any]]:
        return self._run(self.aio.prewarm_batch, *args, **kwargs)

    def prefetch(self, *args: Any, **kwargs: Any) -> PrefetchResult:
        return self._run(self.aio.prefetch, *args, **kwargs)

    def server_info(self, *args: Any, **kwargs: Any) -> Dict[str, Any]:
        return self._run(self.aio.server_info, *args, **kwargs)

    def refresh(self, *args: Any, **kwargs: Any) -> Dict[str, Optional[Dict[str, Any]]]:
        return self._run(self.aio.refresh, *args, **kwargs)

    def fork(self, *args: Any, **kwargs: Any) -> ForkResult:
        return self._run(self.aio.fork, *args, **kwargs)

    def replay(self, *args: Any, **kwargs: Any) -> ReplayResult:
        return self._run(self.aio.replay, *args, **kwargs)

    def shutdown(self) -> None:
        try:
            self._loop.run(self.aio.aclose())
        finally:
            self._loop.stop()

    def __enter__(self) -> "SweEnvClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()


__all__ = ["SweEnvClient"]
