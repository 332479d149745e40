"""AsyncSweEnvClient: the asyncio client (grpc.aio). It holds a Channel (core/), a Placement
(fleet/) and a Branching, and delegates to them; the synchronous facade is in sync_client.py."""
from __future__ import annotations

import asyncio
import json
import os
import uuid
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import grpc
from google.protobuf.json_format import MessageToDict

from .._proto.swe_env.v1 import swe_env_pb2 as pb
from ..core.channel import MOVE_ON, Channel
from ..core.errors import SweEnvError
from ..core.results import ResetResult, StepResult, episode_options, step_result, to_dict
from ..fleet.placement import Placement, resolve_all
from ..fleet.prefetch import PrefetchResult, prefetch_tasks
from ..fleet.relocation import Resolver, ServerDirectory, fleet_resolver, names_fleet
from .branching import Branching, ForkResult, ReplayResult


class AsyncSweEnvClient:
    """asyncio client for one server or a fleet of them. Channels are created lazily, one per event
    loop and server address.

    With several servers (``addresses``, or ``dns_name`` resolving to many) the client places each
    episode, with no scheduler of its own: every episode of a GRPO group (same ``group_id``) goes
    to one server; a new group goes to the server its task id hashes to among those holding the
    task's image (so every group of a task prefers one server, whose image cache then holds it, and
    ``prefetch`` pulls it there), unless that server is over its share of the load (bounded-load rendezvous hashing over
    the servers' GetServerInfo reports), then to the next. RESOURCE_EXHAUSTED or an unreachable
    server moves a Reset on to the next server with the same episode id. A server that stops
    answering is taken out: a step of one of its episodes comes back as an INFRA_ERROR result
    (masked by the trainer, never a 0) and new Resets go elsewhere.

    Every call has a deadline. Retries only where safe: Reset (the client always chooses the
    episode id, so a retry returns the same episode), Step (the server runs a step_index once) and
    Close (idempotent). ``token`` is sent as ``authorization: Bearer``; ``root_certificates`` (or
    ``tls=True`` for the system's roots) turns TLS on, ``certificate_chain``/``private_key`` give
    mutual TLS.
    """

    def __init__(
        self,
        addresses: Union[str, Sequence[str], None] = "127.0.0.1:50051",
        *,
        dns_name: Optional[str] = None,
        token: Optional[str] = None,
        root_certificates: Optional[bytes] = None,
        tls: bool = False,
        certificate_chain: Optional[bytes] = None,
        private_key: Optional[bytes] = None,
        timeout_s: float = 300.0,
        step_timeout_s: float = 3600.0,
        retries: int = 5,
        backoff_s: float = 0.2,
        info_ttl_s: float = 2.0,
        load_factor: float = 1.25,
        restart_wait_s: Optional[float] = None,
        resolver: Optional[Resolver] = None,
    ) -> None:
        given = [] if addresses is None else [addresses] if isinstance(addresses, str) else list(addresses)
        # An entry "ray:NAME" stands for a Ray fleet's servers (swe_env.ray), and ``resolver`` for
        # any fleet that can say which server id is where: a server found again at a new address
        # (its restart took another port) goes on with its episodes there.
        directory = ServerDirectory([r for r in [resolver, *map(fleet_resolver, given)] if r is not None])
        given = [a for a in given if not names_fleet(a)]
        if directory:
            given += [a for a in directory.addresses() if a not in given]
        # An entry "dns:host:port" stands for every address the name resolves to (a headless
        # Service): the integrations take address lists from their configs, so this reaches them too.
        given = [a for entry in given for a in (resolve_all(entry[4:]) if entry.startswith("dns:") else [entry])]
        if dns_name:
            given += [a for a in resolve_all(dns_name) if a not in given]
        if not given:
            raise ValueError("at least one server address is needed (addresses or dns_name)")
        self.timeout_s = timeout_s
        self.step_timeout_s = step_timeout_s
        #: How long a step waits for its server to come back (a restart with the same server id
        #: goes on with its episodes) before the episode counts as lost.
        self.restart_wait_s = restart_wait_s if restart_wait_s is not None else float(os.environ.get("SWE_ENV_RESTART_WAIT_S", "30"))
        #: The calls (core/): channels, credentials, retries.
        self.channel = Channel(
            token=token, root_certificates=root_certificates, tls=tls, certificate_chain=certificate_chain, private_key=private_key, retries=retries, backoff_s=backoff_s
        )
        #: Which server each episode and group goes to and is on (fleet/).
        self.placement = Placement(self.channel, given, directory, info_ttl_s=info_ttl_s, load_factor=load_factor)
        self._branching = Branching(self.channel, self.placement)

    # --- what the parts hold, read through the client ---------------------------------------

    @property
    def addresses(self) -> List[str]:
        """The servers (a server found again at a new address is listed at it)."""
        return self.placement.addresses

    @property
    def down(self) -> set:
        """Servers that stopped answering (taken out until they answer again)."""
        return self.placement.down

    @property
    def info_ttl_s(self) -> float:
        return self.placement.info_ttl_s

    @info_ttl_s.setter
    def info_ttl_s(self, value: float) -> None:
        self.placement.info_ttl_s = value

    @property
    def load_factor(self) -> float:
        return self.placement.load_factor

    @load_factor.setter
    def load_factor(self, value: float) -> None:
        self.placement.load_factor = value

    @property
    def retries(self) -> int:
        return self.channel.retries

    @retries.setter
    def retries(self, value: int) -> None:
        self.channel.retries = value

    @property
    def backoff_s(self) -> float:
        return self.channel.backoff_s

    @backoff_s.setter
    def backoff_s(self, value: float) -> None:
        self.channel.backoff_s = value

    @property
    def retry_count(self) -> int:
        """How many calls were retried (for metrics and tests)."""
        return self.channel.retry_count

    # --- placement (delegated) ------------------------------------------------------------------

    def episode_address(self, episode_id: str) -> str:
        return self.placement.episode_address(episode_id)

    async def server_info(self, address: str, timeout_s: float = 3.0) -> Dict[str, Any]:
        """What one server can take now (GetServerInfo)."""
        return await self.placement.server_info(address, timeout_s)

    async def refresh(self, everyone: bool = False) -> Dict[str, Optional[Dict[str, Any]]]:
        """Asks every server with a stale report (or all) what it can take; a silent one is taken out."""
        return await self.placement.refresh(everyone)

    async def candidates(self, task_id: str, group_id: str, key: str) -> List[str]:
        """The servers to try for a Reset, best first (``Placement.candidates``)."""
        return await self.placement.candidates(task_id, group_id, key, self.timeout_s)

    async def home_of(self, task_id: str) -> str:
        """The server a new group of the task goes to when no server is over its share of the load."""
        return await self.placement.home_of(task_id)

    def home(self, task_id: str) -> str:
        """From the last reports: where Reset tries first for a new group of the task (``Placement.home``)."""
        return self.placement.home(task_id)

    def _lost(self, episode_id: str, address: str, step_index: int, call_id: str) -> StepResult:
        self.placement.lose(episode_id, address)
        return StepResult(
            observation=f"[swe-env fleet] the server holding this episode ({address}) stopped answering; the episode is lost.",
            reward=0.0,
            terminated=False,
            truncated=True,
            status="INFRA_ERROR",
            step_index=step_index,
            exit_code=-1,
            info={"end_reason": "infra_error", "server": address},
            call_id=call_id,
        )

    # --- fork and replay (delegated) ------------------------------------------------------------

    async def fork(
        self,
        episode_id: str,
        n: int,
        *,
        fresh_budgets: bool = False,
        child_episode_ids: Optional[Sequence[str]] = None,
        timeout_s: Optional[float] = None,
    ) -> ForkResult:
        """Forks a live episode between steps into ``n`` children on its server. With
        ``child_episode_ids`` (n of them) a retried fork returns the children it made."""
        return await self._branching.fork(episode_id, n, fresh_budgets=fresh_budgets, child_episode_ids=child_episode_ids, timeout_s=timeout_s or self.timeout_s)

    async def replay(
        self,
        *,
        source_episode_id: str = "",
        trajectory_jsonl: str = "",
        steps: int = 0,
        episode_id: str = "",
        options: Optional[Dict[str, Any]] = None,
        address: Optional[str] = None,
        timeout_s: Optional[float] = None,
    ) -> ReplayResult:
        """Starts an episode from a recording's first ``steps`` bash steps, run again: a trajectory
        the server recorded (``source_episode_id``: the server that ran it, by default the one that
        holds it now) or the JSONL text of one."""
        return await self._branching.replay(
            source_episode_id=source_episode_id,
            trajectory_jsonl=trajectory_jsonl,
            steps=steps,
            episode_id=episode_id,
            options=options,
            address=address,
            timeout_s=timeout_s or self.step_timeout_s,
        )

    # --- calls ----------------------------------------------------------------------------------

    async def list_tasks(self, dataset: str = "", page_size: int = 1000, address: Optional[str] = None) -> List[Dict[str, Any]]:
        address = address or self.addresses[0]
        tasks: List[Dict[str, Any]] = []
        token = ""
        while True:
            page = await self.channel.call(address, "ListTasks", pb.ListTasksRequest(page_size=page_size, page_token=token, dataset=dataset), self.timeout_s, True)
            tasks.extend(to_dict(t) for t in page.tasks)
            token = page.next_page_token
            if not token:
                return tasks

    async def get_task(self, task_id: str, address: Optional[str] = None) -> Dict[str, Any]:
        """The task's description, its rendered prompt and its tools (OpenAI function format, as Reset gives them)."""
        response = await self.channel.call(address or self.addresses[0], "GetTask", pb.GetTaskRequest(task_id=task_id), self.timeout_s, True)
        task = to_dict(response)
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
        request = pb.ResetRequest(task_id=task_id, episode_id=episode_id, seed=seed, group_id=group_id)
        opts = episode_options(options)
        if opts is not None:
            request.options.CopyFrom(opts)
        candidates = await self.candidates(task_id, group_id, task_id)
        single = len(self.addresses) == 1
        last: Optional[SweEnvError] = None
        for address in candidates:
            # Known before the call: a caller cancelled during Reset can still Close the right server.
            self.placement.assign(episode_id, address)
            try:
                response = await self.channel.call(address, "Reset", request, timeout_s or self.timeout_s, single)
            except SweEnvError as error:
                if single or error.code not in MOVE_ON:
                    raise
                if error.code == grpc.StatusCode.UNAVAILABLE:
                    self.down.add(address)
                last = error
                continue
            self.placement.started([episode_id], address, group_id)
            return ResetResult(
                episode_id=response.episode_id,
                observation=response.observation,
                tools=[json.loads(t.openai_json) for t in response.tools],
                info=MessageToDict(response.info),
                options=to_dict(response.options),
                address=address,
            )
        assert last is not None
        raise last

    async def step(
        self,
        episode_id: str,
        step_index: int,
        name: str,
        arguments: Union[Dict[str, Any], str, None] = None,
        *,
        call_id: str = "",
        timeout_s: Optional[float] = None,
        assistant: Optional[Dict[str, str]] = None,
    ) -> StepResult:
        """Runs one tool call. ``assistant`` is the model's own message that made it (``content``,
        ``reasoning``, ``model``): recorded in the episode's trajectory, never acted on."""
        arguments_json = arguments if isinstance(arguments, str) else json.dumps(arguments or {})
        request = pb.StepRequest(episode_id=episode_id, step_index=step_index, action=pb.Action(name=name, arguments_json=arguments_json, call_id=call_id))
        if assistant:
            request.assistant.CopyFrom(
                pb.AssistantTurn(content=str(assistant.get("content") or ""), reasoning=str(assistant.get("reasoning") or ""), model=str(assistant.get("model") or ""))
            )
        lost = self.placement.lost_on(episode_id)
        if lost is not None:
            return self._lost(episode_id, lost, step_index, call_id)
        address = self.episode_address(episode_id)
        fleet = len(self.addresses) > 1
        if address in self.down and fleet:
            if not await self.placement.back_within(address, self.restart_wait_s):
                return self._lost(episode_id, address, step_index, call_id)
            address = self.episode_address(episode_id)  # where it came back (it may have moved)
        comebacks = 0
        while True:
            try:
                response = await self.channel.call(address, "Step", request, timeout_s or self.step_timeout_s, True)
                return step_result(response)
            except SweEnvError as error:
                # A server restarting with its episode records answers the same step index again:
                # its recorded outcome, or INFRA_ERROR when the crash cut the step. Waited for
                # within restart_wait_s; then, or when the restarted server never had the episode,
                # the episode is lost (INFRA_ERROR, masked). Otherwise the error stands and the
                # caller may retry the same step index.
                if error.code == grpc.StatusCode.UNAVAILABLE and comebacks < 3 and await self.placement.back_within(address, self.restart_wait_s):
                    comebacks += 1
                    address = self.episode_address(episode_id)  # where it came back (it may have moved)
                    continue
                if fleet and error.code != grpc.StatusCode.NOT_FOUND and await self.placement.gone(address):
                    return self._lost(episode_id, address, step_index, call_id)
                if error.code == grpc.StatusCode.NOT_FOUND and await self.placement.restarted_since(address, episode_id):
                    return self._lost(episode_id, address, step_index, call_id)
                raise

    async def close(self, episode_id: str, timeout_s: Optional[float] = None) -> Dict[str, Any]:
        lost = self.placement.lost_on(episode_id)
        address = lost or self.episode_address(episode_id)
        if not lost and address in self.down:
            address = await self.placement.relocated(address, self.restart_wait_s) or address
        if lost or (address in self.down and len(self.addresses) > 1):
            self.placement.ended(episode_id, address, closed=False)
            return {"episode_id": episode_id, "end_reason": "infra_error", "reward": 0.0, "server": address}
        try:
            response = await self.channel.call(address, "Close", pb.CloseRequest(episode_id=episode_id), timeout_s or self.timeout_s, True)
        except SweEnvError as error:
            # A server that restarted since the episode began lost it: the environment's failure.
            if error.code == grpc.StatusCode.NOT_FOUND and await self.placement.restarted_since(address, episode_id):
                self.placement.ended(episode_id, address, closed=False)
                return {"episode_id": episode_id, "end_reason": "infra_error", "reward": 0.0, "server": address}
            raise
        self.placement.ended(episode_id, address, closed=True)
        return to_dict(response.summary)

    async def prewarm(self, task_id: str, count: int, *, group_id: str = "") -> Dict[str, Any]:
        """Keeps ``count`` sandboxes of the task ready on the server the group's Resets will go to
        (the group is pinned there), so those Resets skip the container start."""
        last: Optional[SweEnvError] = None
        for address in await self.candidates(task_id, group_id, task_id):
            try:
                response = await self.channel.call(address, "Prewarm", pb.PrewarmRequest(task_id=task_id, count=count), self.timeout_s, True)
            except SweEnvError as error:
                if error.code not in MOVE_ON:
                    raise
                last = error
                continue
            if group_id:
                self.placement.pin_group(group_id, address)
            return {**to_dict(response), "address": address}
        assert last is not None
        raise last

    async def prewarm_batch(self, batch: Sequence[Tuple[str, str, int]]) -> List[Dict[str, Any]]:
        """Prewarms the next batch while the current one runs: ``(task_id, group_id, count)`` per GRPO group."""
        return list(await asyncio.gather(*(self.prewarm(task_id, count, group_id=group_id) for task_id, group_id, count in batch)))

    async def prefetch(self, task_ids: Sequence[str], *, timeout_s: float = 30.0) -> PrefetchResult:
        """Starts pulling the tasks' images where their Resets will go and answers at once (the
        pulls go on): each task to the server a new group of it is placed on, one Prefetch call per
        server, concurrently. Unknown task ids are reported (and logged), not raised."""
        return await prefetch_tasks(self.channel, self.placement, task_ids, timeout_s=timeout_s)

    async def evaluate(self, task_id: str, patch: str, timeout_s: Optional[float] = None) -> Dict[str, Any]:
        response = await self.channel.call(self.addresses[0], "Evaluate", pb.EvaluateRequest(task_id=task_id, patch=patch), timeout_s or self.step_timeout_s, False)
        return to_dict(response.report)

    async def interrupt(self, episode_id: str, timeout_s: Optional[float] = None) -> bool:
        """Stops the bash command the episode runs now (its Step answers exit code 130, and the
        episode goes on); False when it was between steps."""
        request = pb.InterruptRequest(episode_id=episode_id)
        response = await self.channel.call(self.episode_address(episode_id), "Interrupt", request, timeout_s or self.timeout_s, True)
        return bool(response.interrupted)

    async def aclose(self) -> None:
        """Closes the channels of the running loop."""
        await self.channel.aclose()


__all__ = ["AsyncSweEnvClient", "ResetResult", "StepResult", "SweEnvError", "PrefetchResult"]
