"""swe-env on a Ray cluster: one server per node, owned by a Ray actor on that node.

``SweEnvRayFleet`` starts a :class:`SweEnvServerActor` on every alive node of the user's existing
cluster (node affinity, not soft), each running the Node server with that node's container engine,
restarts a server that dies (same server id and state directory, so it goes on with its live
episodes; same port when it is free), survives its actor's own death and restart (the new actor
takes the running server over, or starts it again the same way), and hands the fleet client the
fleet's address entry ``ray:NAME``, which finds each server wherever it listens now. ``shutdown`` stops every server
(each removes its containers) and the actors. A GRPO trainer already on Ray (verl, NeMo-RL) runs
the environment without a scheduler of its own::

    fleet = SweEnvRayFleet(tasks=["/data/tasks.jsonl"])
    client = fleet.client()            # an AsyncSweEnvClient over every node's server
    ...
    fleet.shutdown()
"""
from __future__ import annotations

import os
import shutil
import signal
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from ..client.async_client import AsyncSweEnvClient
from ..client.sync_client import SweEnvClient
from ..fleet.prefetch import PrefetchResult
from .server_process import ServerProcess


def default_cli() -> List[str]:
    """How to start the server: SWE_ENV_CLI, this repository's build, or ``swe-env`` on PATH."""
    explicit = os.environ.get("SWE_ENV_CLI")
    if explicit:
        return explicit.split()
    built = Path(__file__).resolve().parents[4] / "dist" / "src" / "cli" / "main.js"
    if built.exists():
        return ["node", str(built)]
    found = shutil.which("swe-env")
    if found:
        return [found]
    raise RuntimeError("cannot find the swe-env server: set SWE_ENV_CLI, or put swe-env on PATH")


@ray.remote(num_cpus=0, max_restarts=-1, max_task_retries=-1)
class SweEnvServerActor:
    """Owns one node's swe-env server process; restarts it when it dies.

    Ray restarts the actor itself when it dies (``max_restarts=-1``), with the same arguments: the
    new actor takes over the server the old one left running, or starts it again with the same
    server id and state directory (it re-adopts the node's live episodes), on the same port when
    it is free and on another one otherwise. Clients given the fleet as ``ray:NAME`` find that new
    address (see :func:`fleet_servers`)."""

    def __init__(self, cli: Sequence[str], args: Sequence[str], server_id: str, host: Optional[str], env: Dict[str, str]) -> None:
        self.cli = list(cli)
        self.args = list(args)
        self.server_id = server_id
        self.host = host or ray.util.get_node_ip_address()
        self.env = {**os.environ, **env}
        self.restarts = 0
        self.stopping = False
        self.lock = threading.Lock()
        self.server = ServerProcess(server_id)
        self.server.own()
        self.log = Path(tempfile.gettempdir()) / f"swe-env-{server_id}.log"
        #: Whether this actor took over a server an earlier actor of this server id left running.
        self.adopted = ray.get_runtime_context().was_current_actor_reconstructed and self.server.adopt_previous()
        if not self.adopted:
            self._first_start()
        threading.Thread(target=self._watch, name="swe-env-watch", daemon=True).start()

    @property
    def address(self) -> str:
        return self.server.address

    def _start(self, port: int) -> None:
        command = [*self.cli, "serve", "--host", self.host, "--port", str(port), "--server-id", self.server_id, *self.args]
        # The server's log goes to a file (a pipe nobody reads would block it); its tail explains a failed start.
        self.server.start(command, self.env, self.log)

    def _first_start(self) -> None:
        """A new fleet's actor starts its server once (a failure is the caller's to see); a restarted
        actor whose server is gone keeps trying a while (the dead server's port and state lock may
        take a moment to be released)."""
        if not ray.get_runtime_context().was_current_actor_reconstructed:
            self._start(0)
            return
        port = self.server.previous_port()
        deadline = time.monotonic() + 120
        while True:
            try:
                self._start(port if time.monotonic() < deadline - 115 else 0)
                return
            except RuntimeError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(1)

    def _restart(self) -> None:
        """The same port first (clients given plain addresses keep theirs), then any free one."""
        port = int(self.server.address.rsplit(":", 1)[1]) if self.server.address else 0
        for attempt in range(1_000_000):
            if self.stopping:
                return
            try:
                self._start(port if attempt < 5 else 0)
                return
            except RuntimeError:
                # The port may still be held for a moment, or by another process now; the state
                # directory's lock by the dying server.
                time.sleep(1)

    def _watch(self) -> None:
        while True:
            self.server.wait()
            with self.lock:
                if self.stopping:
                    return
                self.restarts += 1
                self._restart()

    def info(self) -> Dict[str, Any]:
        return {
            "address": self.server.address,
            "server_id": self.server_id,
            "node_id": ray.get_runtime_context().get_node_id(),
            "pid": self.server.pid or None,
            "restarts": self.restarts,
            "actor_pid": os.getpid(),
            "adopted": self.adopted,
        }

    def kill_server(self) -> int:
        """SIGKILLs the server process (for tests of the restart); returns its pid."""
        pid = self.server.pid
        os.kill(pid, signal.SIGKILL)
        return pid

    def stop(self) -> None:
        """Stops the server: it drains and removes every container it started."""
        self.stopping = True
        with self.lock:  # a restart under way ends first
            pass
        self.server.stop()


#: The Ray namespace of every fleet's actors (named NAME:INDEX), so any job of the cluster finds them.
NAMESPACE = "swe-env"

EngineSocket = Union[None, str, Callable[[Dict[str, Any]], Optional[str]]]


class SweEnvRayFleet:
    """One swe-env server per alive node of the connected Ray cluster.

    ``docker_socket`` is each node's engine socket: one path for every node, or a function of the
    node (an entry of ``ray.nodes()``), or None for the engine's default. ``host`` defaults to each
    node's IP address; a server bound beyond loopback needs ``args`` with its token and TLS
    (``--auth-token-file``, ``--tls-cert``, ``--tls-key``), and the client the same token and CA.

    The actors are named ``NAME:INDEX`` in the Ray namespace ``swe-env`` (``name`` defaults to a
    new ``swe-env-XXXXXX``): any process of the cluster reaches the fleet by the address entry
    ``ray:NAME`` (:attr:`address`; an integration's address list takes it too), and a client so
    made finds a server again at its new address after Ray restarted its actor.
    """

    def __init__(
        self,
        *,
        tasks: Sequence[str],
        args: Sequence[str] = (),
        docker_socket: EngineSocket = None,
        host: Optional[str] = None,
        cli: Optional[Sequence[str]] = None,
        env: Optional[Dict[str, str]] = None,
        nodes: Optional[Sequence[Dict[str, Any]]] = None,
        name: Optional[str] = None,
    ) -> None:
        self.nodes = list(nodes) if nodes is not None else [n for n in ray.nodes() if n.get("Alive")]
        if not self.nodes:
            raise RuntimeError("the Ray cluster has no alive node")
        command = list(cli) if cli else default_cli()
        task_args = [a for path in tasks for a in ("--tasks", str(path))]
        run_id = uuid.uuid4().hex[:6]
        self.name = name or f"swe-env-{run_id}"
        if ":" in self.name:
            raise ValueError(f"a fleet name cannot hold ':', got {self.name!r}")
        self.actors = []
        for index, node in enumerate(self.nodes):
            socket = docker_socket(node) if callable(docker_socket) else docker_socket
            node_args = [*task_args, *args, *(["--docker-socket", socket] if socket else [])]
            actor = SweEnvServerActor.options(  # type: ignore[attr-defined]  # ray.remote gives the class .options
                name=f"{self.name}:{index}",
                namespace=NAMESPACE,
                scheduling_strategy=NodeAffinitySchedulingStrategy(node_id=node["NodeID"], soft=False),
            ).remote(command, node_args, f"ray-{run_id}-{index}", host, env or {})
            self.actors.append(actor)
        self.servers: List[Dict[str, Any]] = ray.get([a.info.remote() for a in self.actors])
        self.addresses: List[str] = [s["address"] for s in self.servers]

    @property
    def address(self) -> str:
        """``ray:NAME``: the address entry that reaches every server of this fleet, wherever Ray
        restarted its actor (give it to the integrations as their address list)."""
        return f"ray:{self.name}"

    def client(self, **kwargs: Any) -> AsyncSweEnvClient:
        """An asyncio fleet client over every node's server, following their restarts."""
        return AsyncSweEnvClient([self.address], **kwargs)

    def sync_client(self, **kwargs: Any) -> SweEnvClient:
        return SweEnvClient([self.address], **kwargs)

    def prefetch(self, task_ids: Sequence[str], **kwargs: Any) -> "PrefetchResult":
        """Starts pulling the tasks' images on the nodes their groups will be placed on (the same
        rule as the fleet client's Resets). ``kwargs`` as for ``client()`` (token, CA)."""
        timeout_s = float(kwargs.pop("timeout_s", 30.0))
        with self.sync_client(**kwargs) as client:
            return client.prefetch(task_ids, timeout_s=timeout_s)

    def info(self) -> List[Dict[str, Any]]:
        return ray.get([a.info.remote() for a in self.actors])

    def shutdown(self) -> None:
        """Stops every server (each removes its containers), then the actors."""
        try:
            ray.get([a.stop.remote() for a in self.actors])
        finally:
            for actor in self.actors:
                ray.kill(actor, no_restart=True)


def fleet_servers(name: str, timeout_s: float = 60.0) -> Dict[str, str]:
    """The fleet's servers now, ``{server_id: address}``, asked of its actors by name (an actor Ray
    is restarting answers once it is up again, with its server's address). Connects to the
    cluster (``address="auto"``) when this process is not connected yet."""
    if not ray.is_initialized():
        ray.init(address="auto", log_to_driver=False)
    names = sorted(
        (a["name"] for a in ray.util.list_named_actors(all_namespaces=True) if a.get("namespace") == NAMESPACE and a["name"].rpartition(":")[0] == name),
        key=lambda n: int(n.rpartition(":")[2]) if n.rpartition(":")[2].isdigit() else 0,
    )
    if not names:
        raise LookupError(f"no swe-env fleet named {name!r} on this Ray cluster")
    actors = [ray.get_actor(n, namespace=NAMESPACE) for n in names]
    infos = ray.get([a.info.remote() for a in actors], timeout=timeout_s)
    return {i["server_id"]: i["address"] for i in infos}


__all__ = ["SweEnvRayFleet", "SweEnvServerActor", "default_cli", "fleet_servers"]
