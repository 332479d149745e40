"""gRPC clients for swe-env: an asyncio core (grpc.aio) and a synchronous facade over it."""
from __future__ import annotations

import asyncio
import itertools
import json
import threading
import uuid
import zlib
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Dict, List, Optional, Sequence, Tuple, TypeVar, Union

import grpc
from google.protobuf.json_format import MessageToDict

from ._proto.swe_env.v1 import swe_env_pb2 as pb
from ._proto.swe_env.v1 import swe_env_pb2_grpc as pb_grpc
from .errors import SweEnvError, from_rpc_error

T = TypeVar("T")

#: Keepalive the Node server accepts (it permits pings without calls, every 5 s at most).
CHANNEL_OPTIONS: Tuple[Tuple[str, Any], ...] = (
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
    ("grpc.max_receive_message_length", 64 * 1024 * 1024),
    ("grpc.max_send_message_length", 64 * 1024 * 1024),
)

#: Failures after which a call is retried, for the calls that are safe to retry.
RETRYABLE = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})


@dataclass(frozen=True)
class ResetResult:
    episode_id: str
    observation: str
    tools: List[Dict[str, Any]]
    info: Dict[str, Any]
    options: Dict[str, Any]
    address: str


@dataclass(frozen=True)
class StepResult:
    observation: str
    reward: float
    terminated: bool
    truncated: bool
    status: str
    step_index: int
    exit_code: int
    info: Dict[str, Any] = field(default_factory=dict)
    report: Optional[Dict[str, Any]] = None
    call_id: str = ""

    @property
    def infra_error(self) -> bool:
        """The environment failed: mask this sample rather than learn from its reward."""
        return self.status == "INFRA_ERROR"


def _status(value: int) -> str:
    return pb.StepStatus.Name(value).replace("STEP_STATUS_", "")


def _to_dict(message: Any) -> Dict[str, Any]:
    # protobuf 4.x names the option including_default_value_fields; 5.26+ renamed it.
    try:
        return MessageToDict(message, preserving_proto_field_name=True, including_default_value_fields=True)
    except TypeError:
        return MessageToDict(message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)


def _step_result(response: Any) -> StepResult:
    return StepResult(
        observation=response.observation,
        reward=response.reward,
        terminated=response.terminated,
        truncated=response.truncated,
        status=_status(response.status),
        step_index=response.step_index,
        exit_code=response.exit_code,
        info=MessageToDict(response.info) if response.HasField("info") else {},
        report=_to_dict(response.report) if response.HasField("report") else None,
        call_id=response.call_id,
    )


def _episode_options(options: Optional[Dict[str, Any]]) -> Optional[Any]:
    if not options:
        return None
    fields = dict(options)
    truncation = fields.pop("truncation", None)
    message = pb.EpisodeOptions(**fields)
    if truncation is not None:
        message.truncation = pb.TruncationPolicy.Value(f"TRUNCATION_POLICY_{str(truncation).upper()}")
    return message


class AsyncSweEnvClient:
    """asyncio client. Channels are created lazily, one per event loop and server address.

    Several addresses spread episodes over servers; a GRPO group (same ``group_id``) stays on one
    server. Every call has a deadline. Retries only where safe: Reset (the client always chooses the
    episode id, so a retry returns the same episode), Step (the server runs a step_index once) and
    Close (idempotent).
    """

    def __init__(
        self,
        addresses: Union[str, Sequence[str]] = "127.0.0.1:50051",
        *,
        timeout_s: float = 300.0,
        step_timeout_s: float = 3600.0,
        retries: int = 5,
        backoff_s: float = 0.2,
    ) -> None:
        self.addresses: List[str] = [addresses] if isinstance(addresses, str) else list(addresses)
        if not self.addresses:
            raise ValueError("at least one server address is needed")
        self.timeout_s = timeout_s
        self.step_timeout_s = step_timeout_s
        self.retries = retries
        self.backoff_s = backoff_s
        self._channels: Dict[Tuple[int, str], grpc.aio.Channel] = {}
        self._stubs: Dict[Tuple[int, str], pb_grpc.SweEnvStub] = {}
        self._episode_address: Dict[str, str] = {}
        self._round_robin = itertools.cycle(range(len(self.addresses)))
        #: How many calls were retried (for metrics and tests).
        self.retry_count = 0

    # --- channels -------------------------------------------------------------------------------

    def _stub(self, address: str) -> pb_grpc.SweEnvStub:
        key = (id(asyncio.get_running_loop()), address)
        stub = self._stubs.get(key)
        if stub is None:
            channel = grpc.aio.insecure_channel(address, options=CHANNEL_OPTIONS)
            self._channels[key] = channel
            stub = self._stubs[key] = pb_grpc.SweEnvStub(channel)
        return stub

    def address_for(self, group_id: Optional[str] = None) -> str:
        if group_id:
            return self.addresses[zlib.crc32(group_id.encode()) % len(self.addresses)]
        return self.addresses[next(self._round_robin)]

    def episode_address(self, episode_id: str) -> str:
        return self._episode_address.get(episode_id, self.addresses[0])

    async def _call(self, address: str, method: str, request: Any, timeout_s: float, retry: bool) -> Any:
        attempt = 0
        while True:
            try:
                return await getattr(self._stub(address), method)(request, timeout=timeout_s)
            except grpc.aio.AioRpcError as error:
                if not retry or error.code() not in RETRYABLE or attempt >= self.retries:
                    raise from_rpc_error(error) from None
            attempt += 1
            self.retry_count += 1
            await asyncio.sleep(min(5.0, self.backoff_s * (2 ** (attempt - 1))))

    # --- calls ----------------------------------------------------------------------------------

    async def list_tasks(self, dataset: str = "", page_size: int = 1000, address: Optional[str] = None) -> List[Dict[str, Any]]:
        address = address or self.addresses[0]
        tasks: List[Dict[str, Any]] = []
        token = ""
        while True:
            page = await self._call(address, "ListTasks", pb.ListTasksRequest(page_size=page_size, page_token=token, dataset=dataset), self.timeout_s, True)
            tasks.extend(_to_dict(t) for t in page.tasks)
            token = page.next_page_token
            if not token:
                return tasks

    async def get_task(self, task_id: str, address: Optional[str] = None) -> Dict[str, Any]:
        """The task's description, its rendered prompt and its tools (OpenAI function format, as Reset gives them)."""
        response = await self._call(address or self.addresses[0], "GetTask", pb.GetTaskRequest(task_id=task_id), self.timeout_s, True)
        task = _to_dict(response)
        task["tools"] = [json.loads(t.openai_json) for t in response.tools]
        return task

    async def reset(
        self,
        task_id: str,
        *,
        episode_id: Optional[str] = None,
        seed: int = 0,
        group_id: str = "",
        options: Optional[Dict[str, Any]] = None,
        timeout_s: Optional[float] = None,
    ) -> ResetResult:
        episode_id = episode_id or str(uuid.uuid4())
        address = self.address_for(group_id)
        request = pb.ResetRequest(task_id=task_id, episode_id=episode_id, seed=seed, group_id=group_id)
        opts = _episode_options(options)
        if opts is not None:
            request.options.CopyFrom(opts)
        # Known before the call: a caller cancelled during Reset can still Close the right server.
        self._episode_address[episode_id] = address
        response = await self._call(address, "Reset", request, timeout_s or self.timeout_s, True)
        return ResetResult(
            episode_id=response.episode_id,
            observation=response.observation,
            tools=[json.loads(t.openai_json) for t in response.tools],
            info=MessageToDict(response.info),
            options=_to_dict(response.options),
            address=address,
        )

    async def step(
        self,
        episode_id: str,
        step_index: int,
        name: str,
        arguments: Union[Dict[str, Any], str, None] = None,
        *,
        call_id: str = "",
        timeout_s: Optional[float] = None,
    ) -> StepResult:
        arguments_json = arguments if isinstance(arguments, str) else json.dumps(arguments or {})
        request = pb.StepRequest(episode_id=episode_id, step_index=step_index, action=pb.Action(name=name, arguments_json=arguments_json, call_id=call_id))
        response = await self._call(self.episode_address(episode_id), "Step", request, timeout_s or self.step_timeout_s, True)
        return _step_result(response)

    async def close(self, episode_id: str, timeout_s: Optional[float] = None) -> Dict[str, Any]:
        response = await self._call(self.episode_address(episode_id), "Close", pb.CloseRequest(episode_id=episode_id), timeout_s or self.timeout_s, True)
        self._episode_address.pop(episode_id, None)
        return _to_dict(response.summary)

    async def evaluate(self, task_id: str, patch: str, timeout_s: Optional[float] = None) -> Dict[str, Any]:
        response = await self._call(self.addresses[0], "Evaluate", pb.EvaluateRequest(task_id=task_id, patch=patch), timeout_s or self.step_timeout_s, False)
        return _to_dict(response.report)

    async def aclose(self) -> None:
        """Closes the channels of the running loop."""
        loop_id = id(asyncio.get_running_loop())
        for key in [k for k in self._channels if k[0] == loop_id]:
            await self._channels.pop(key).close()
            self._stubs.pop(key, None)


class _LoopThread:
    """An event loop in a daemon thread, for the synchronous facade."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="swe-env-client", daemon=True)
        self.thread.start()

    def run(self, coro: Awaitable[T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()  # type: ignore[arg-type]

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5)
        if not self.thread.is_alive():
            self.loop.close()


class SweEnvClient:
    """Synchronous facade: the same calls as AsyncSweEnvClient, run on a private event loop."""

    def __init__(self, addresses: Union[str, Sequence[str]] = "127.0.0.1:50051", **kwargs: Any) -> None:
        self.aio = AsyncSweEnvClient(addresses, **kwargs)
        self._loop = _LoopThread()

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

    def shutdown(self) -> None:
        try:
            self._loop.run(self.aio.aclose())
        finally:
            self._loop.stop()

    def __enter__(self) -> "SweEnvClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()


__all__ = ["AsyncSweEnvClient", "SweEnvClient", "ResetResult", "StepResult", "SweEnvError", "CHANNEL_OPTIONS"]
