"""The scenario tests/test_ray.py runs in a process of its own (Ray is started once per process).

swe_env.ray on a real multi-node Ray cluster on this machine (ray.cluster_utils: a head and two
worker nodes), each node's server on its own Docker engine (scripts/extra-engine.sh: separate
dockerd data roots and sockets): one server per node, episodes in containers of their server's
engine, a killed server restarted at the same address with its lost episodes reported as
INFRA_ERROR, and shutdown removing every container on every engine."""
from __future__ import annotations

import asyncio
import json
import subprocess
import time

import sys
from pathlib import Path

import ray
from ray.cluster_utils import Cluster

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from swe_env.ray import SweEnvRayFleet  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
DEMO_TASKS = ROOT / "tasks" / "demo" / "tasks.jsonl"

TASK = "swe-env-demo__minicalc-1"


def _images() -> list:
    """The base image and the images of the tasks the fleet serves (tasks/demo), not every demo
    image of the default engine: copying the other languages' toolchain images (4.6 GB) into two
    engines took most of this scenario's time."""
    ids = [json.loads(line)["instance_id"] for line in DEMO_TASKS.read_text().splitlines() if line.strip()]
    return ["swe-env/base:latest"] + [f"sweb.eval.x86_64.{i}:latest" for i in ids]


def _engine(name: str) -> str:
    out = subprocess.run(["bash", str(ROOT / "scripts" / "extra-engine.sh"), name, *_images()], capture_output=True, text=True)
    if out.returncode != 0:
        # The script says why (the engine's log, a refused load) on its stderr: keep it.
        raise RuntimeError(f"extra-engine.sh {name} exited {out.returncode}:\n{out.stderr[-4000:]}")
    return out.stdout.strip().splitlines()[-1]


def _containers(socket: str, label: str) -> list:
    host = ["-H", f"unix://{socket}"] if socket else []
    out = subprocess.run(["docker", *host, "ps", "-aq", "--filter", f"label={label}"], capture_output=True, text=True, check=True)
    return out.stdout.split()


def cluster():
    sockets = {"0": "", "1": _engine("ray1"), "2": _engine("ray2")}
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "resources": {"swe_env_engine_0": 1}})
    for name in ("1", "2"):
        c.add_node(num_cpus=1, resources={f"swe_env_engine_{name}": 1})
    ray.init(address=c.address, log_to_driver=False)
    return sockets, c


def test_one_server_per_node_on_its_own_engine_restarted_when_killed(cluster):
    sockets = cluster

    def engine_of(node: dict) -> str:
        return next((sockets[n] or None for n in sockets if f"swe_env_engine_{n}" in node["Resources"]), None)  # type: ignore[return-value]

    # All three nodes are this machine: loopback (a server on a node's own address would need its
    # token and TLS, which it refuses to start without; tested in test_refuses_a_node_address_without_auth).
    fleet = SweEnvRayFleet(tasks=[str(DEMO_TASKS)], docker_socket=engine_of, host="127.0.0.1", args=("--max-episodes", "4", "--log-level", "warn"))
    engine_by_address = {}
    try:
        servers = fleet.info()
        assert len(servers) == 3
        assert len({s["node_id"] for s in servers}) == 3  # one per node
        for node, server in zip(fleet.nodes, servers):
            engine_by_address[server["address"]] = engine_of(node) or ""

        async def run() -> None:
            client = fleet.client(info_ttl_s=0, retries=1)
            placed = []
            for group in ("a", "b", "c", "d"):
                for _ in range(2):
                    r = await client.reset(TASK, group_id=group)
                    placed.append(r)
            used = {r.address for r in placed}
            assert len(used) >= 2
            # Each episode's sandbox is a container of its own server's engine, not of another's.
            for r in placed:
                here = _containers(engine_by_address[r.address], f"swe-env.episode={r.episode_id}")
                assert len(here) == 1, (r.address, here)
                for other in set(engine_by_address.values()) - {engine_by_address[r.address]}:
                    assert _containers(other, f"swe-env.episode={r.episode_id}") == []
            # Kill one server process: its actor restarts it at the same address.
            victim_index = fleet.addresses.index(placed[0].address)
            old_pid = ray.get(fleet.actors[victim_index].kill_server.remote())
            for _ in range(120):
                info = ray.get(fleet.actors[victim_index].info.remote())
                if info["restarts"] >= 1 and info["pid"] != old_pid:
                    break
                time.sleep(0.5)
            assert info["restarts"] == 1 and info["address"] == placed[0].address
            # The restarted server took its episodes over: the episode goes on in its container.
            survived = await client.step(placed[0].episode_id, 0, "bash", {"command": "echo hi"})
            assert survived.status == "OK" and survived.observation.startswith("hi\n"), survived
            assert "server restarted" in survived.observation
            assert len(_containers(engine_by_address[placed[0].address], f"swe-env.episode={placed[0].episode_id}")) == 1
            again = await client.reset(TASK, group_id="after-restart")
            assert (await client.step(again.episode_id, 0, "bash", {"command": "echo ok"})).observation == "ok\n"
            for r in [*placed, again]:
                await client.close(r.episode_id)
            await client.aclose()

        asyncio.run(run())
    finally:
        ids = [s["server_id"] for s in fleet.servers]
        fleet.shutdown()
        for socket in set(engine_by_address.values()) | {""}:
            for server_id in ids:
                assert _containers(socket, f"swe-env.server={server_id}") == []


def test_refuses_a_node_address_without_auth(cluster):
    """On the node's own (non-loopback) address and without a token and TLS, the server refuses to
    start, and the launcher says why instead of handing out an open sandbox server."""
    node = [n for n in ray.nodes() if n.get("Alive")][:1]
    if all(n["NodeManagerAddress"].startswith("127.") for n in node):
        raise AssertionError("the Ray node has a loopback address here; this check needs the machine's address")
    try:
        SweEnvRayFleet(tasks=[str(DEMO_TASKS)], nodes=node)
    except Exception as refused:  # the actor's creation error, raised here
        assert "refusing to listen" in str(refused), refused
    else:
        raise AssertionError("a server on the node's own address started without a token and TLS")


if __name__ == "__main__":
    sockets, c = cluster()
    try:
        test_one_server_per_node_on_its_own_engine_restarted_when_killed(sockets)
        print("SCENARIO one-server-per-node: ok", flush=True)
        test_refuses_a_node_address_without_auth(sockets)
        print("SCENARIO refuses-without-auth: ok", flush=True)
    finally:
        ray.shutdown()
        c.shutdown()
