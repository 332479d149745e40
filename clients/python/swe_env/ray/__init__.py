"""swe-env on a Ray cluster: one server per node, owned by a Ray actor on that node.

``SweEnvRayFleet`` starts a :class:`SweEnvServerActor` on every alive node of the user's existing
cluster (node affinity, not soft), each running the Node server with that node's container engine,
restarts a server that dies (same server id and state directory, so it goes on with its live
episodes, and same port, so its address holds), and hands the fleet client its addresses. ``shutdown`` stops every server
(each removes its containers) and the actors. A GRPO trainer already on Ray (verl, NeMo-RL) runs
the environment without a scheduler of its own::

    fleet = SweEnvRayFleet(tasks=["/data/tasks.jsonl"])
    client = fleet.client()            # an AsyncSweEnvClient over every node's server
    ...
    fleet.shutdown()
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from ..client import AsyncSweEnvClient, SweEnvClient


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
    """Owns one node's swe-env server process; restarts it when it dies."""

    def __init__(self, cli: Sequence[str], args: Sequence[str], server_id: str, host: Optional[str], env: Dict[str, str]) -> None:
        self.cli = list(cli)
        self.args = list(args)
        self.server_id = server_id
        self.host = host or ray.util.get_node_ip_address()
        self.env = {**os.environ, **env}
        self.port = 0
        self.restarts = 0
        self.stopping = False
        self.lock = threading.Lock()
        self.proc: Optional[subprocess.Popen] = None
        self.address = ""
        self._start()
        threading.Thread(target=self._watch, name="swe-env-watch", daemon=True).start()

    def _start(self) -> None:
        command = [*self.cli, "serve", "--host", self.host, "--port", str(self.port), "--server-id", self.server_id, *self.args]
        # The server's log goes to a file (a pipe nobody reads would block it); its tail explains a failed start.
        log = Path(tempfile.gettempdir()) / f"swe-env-{self.server_id}.log"
        with open(log, "ab") as sink:
            proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=sink, text=True, env=self.env)
        line = proc.stdout.readline() if proc.stdout else ""
        match = re.search(r"listening on (\S+)", line)
        if not match:
            proc.kill()
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(f"the swe-env server did not start on {self.host}: {line!r} {tail}")
        self.proc = proc
        self.address = match.group(1)
        # The same port on a restart: the fleet client keeps the address it was given.
        self.port = int(self.address.rsplit(":", 1)[1])

    def _watch(self) -> None:
        while True:
            proc = self.proc
            if proc is None:
                return
            proc.wait()
            with self.lock:
                if self.stopping:
                    return
                self.restarts += 1
                for _ in range(30):
                    try:
                        self._start()
                        break
                    except RuntimeError:
                        time.sleep(1)  # the port may still be held for a moment

    def info(self) -> Dict[str, Any]:
        return {
            "address": self.address,
            "server_id": self.server_id,
            "node_id": ray.get_runtime_context().get_node_id(),
            "pid": self.proc.pid if self.proc else None,
            "restarts": self.restarts,
        }

    def kill_server(self) -> int:
        """SIGKILLs the server process (for tests of the restart); returns its pid."""
        assert self.proc is not None
        pid = self.proc.pid
        os.kill(pid, signal.SIGKILL)
        return pid

    def stop(self) -> None:
        """Stops the server: it drains and removes every container it started."""
        with self.lock:
            self.stopping = True
            proc = self.proc
        if proc and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                proc.kill()


EngineSocket = Union[None, str, Callable[[Dict[str, Any]], Optional[str]]]


class SweEnvRayFleet:
    """One swe-env server per alive node of the connected Ray cluster.

    ``docker_socket`` is each node's engine socket: one path for every node, or a function of the
    node (an entry of ``ray.nodes()``), or None for the engine's default. ``host`` defaults to each
    node's IP address; a server bound beyond loopback needs ``args`` with its token and TLS
    (``--auth-token-file``, ``--tls-cert``, ``--tls-key``), and the client the same token and CA.
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
    ) -> None:
        self.nodes = list(nodes) if nodes is not None else [n for n in ray.nodes() if n.get("Alive")]
        if not self.nodes:
            raise RuntimeError("the Ray cluster has no alive node")
        command = list(cli) if cli else default_cli()
        task_args = [a for path in tasks for a in ("--tasks", str(path))]
        run_id = uuid.uuid4().hex[:6]
        self.actors = []
        for index, node in enumerate(self.nodes):
            socket = docker_socket(node) if callable(docker_socket) else docker_socket
            node_args = [*task_args, *args, *(["--docker-socket", socket] if socket else [])]
            actor = SweEnvServerActor.options(
                scheduling_strategy=NodeAffinitySchedulingStrategy(node_id=node["NodeID"], soft=False),
            ).remote(command, node_args, f"ray-{run_id}-{index}", host, env or {})
            self.actors.append(actor)
        self.servers: List[Dict[str, Any]] = ray.get([a.info.remote() for a in self.actors])
        self.addresses: List[str] = [s["address"] for s in self.servers]

    def client(self, **kwargs: Any) -> AsyncSweEnvClient:
        """An asyncio fleet client over every node's server."""
        return AsyncSweEnvClient(self.addresses, **kwargs)

    def sync_client(self, **kwargs: Any) -> SweEnvClient:
        return SweEnvClient(self.addresses, **kwargs)

    def info(self) -> List[Dict[str, Any]]:
        return ray.get([a.info.remote() for a in self.actors])

    def shutdown(self) -> None:
        """Stops every server (each removes its containers), then the actors."""
        try:
            ray.get([a.stop.remote() for a in self.actors])
        finally:
            for actor in self.actors:
                ray.kill(actor, no_restart=True)


__all__ = ["SweEnvRayFleet", "SweEnvServerActor", "default_cli"]
