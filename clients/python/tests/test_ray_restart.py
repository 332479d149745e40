"""swe_env.ray when the actor that owns a node's server dies and Ray restarts it: the node's episodes
go on, in their containers, through a client made from the fleet's address entry (``ray:NAME``),
whether the new actor takes over the server the old one left running or has to start it again (same
server id and state directory) on another port because the old one is taken. And the client's own
relocation, without Ray: a server restarted at a new address that a ``resolver`` names."""
from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import tempfile
import time

from conftest import DEMO_TASKS, SCRATCH, Server
from swe_env import AsyncSweEnvClient

TASK = "swe-env-demo__minicalc-1"


def _containers(server_id: str) -> list:
    out = subprocess.run(["docker", "ps", "-aq", "--filter", f"label=swe-env.server={server_id}"], capture_output=True, text=True, check=True)
    return out.stdout.split()


def _remove_containers(server_id: str) -> None:
    for cid in _containers(server_id):
        subprocess.run(["docker", "rm", "-f", cid], capture_output=True)


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except OSError:
        return True


def _hold_port(port: int, within_s: float = 10.0) -> socket.socket:
    """Listens on the port a killed server held, as soon as it is released."""
    deadline = time.monotonic() + within_s
    while True:
        sock = socket.socket()
        # The killed server's connections linger in TIME_WAIT; a listener bound now is what counts.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
            sock.listen()
            return sock
        except OSError:
            sock.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def _restarted_actor(fleet, old_actor_pid: int, within_s: float = 120.0) -> dict:
    """The fleet's first server as told by its next actor (``ray.kill`` is asynchronous: the actor
    being killed may still answer a call or two)."""
    deadline = time.monotonic() + within_s
    while True:
        info = fleet.info()[0]
        if info["actor_pid"] != old_actor_pid:
            return info
        assert time.monotonic() < deadline, f"the actor was not restarted: {info}"
        time.sleep(0.2)


def test_episodes_go_on_when_the_servers_actor_dies_and_ray_restarts_it(ray_cluster):
    from swe_env.ray import SweEnvRayFleet

    ray = ray_cluster
    state = tempfile.mkdtemp(prefix="swe-env-ray-state-", dir=SCRATCH)
    fleet = SweEnvRayFleet(
        tasks=[str(DEMO_TASKS)],
        host="127.0.0.1",
        nodes=[n for n in ray.nodes() if n.get("Alive")][:1],
        args=("--state-dir", state, "--trajectory-dir", os.path.join(state, "trajectories"), "--log-level", "warn"),
    )
    server_id = fleet.servers[0]["server_id"]
    held = None
    try:

        async def scenario() -> None:
            nonlocal held
            # What an integration does with its address list: the fleet's entry, not an address.
            client = AsyncSweEnvClient([fleet.address], restart_wait_s=90)
            episode = await client.reset(TASK)
            first = fleet.info()[0]
            assert (await client.step(episode.episode_id, 0, "bash", {"command": "echo one > /tmp/mark"})).status == "OK"

            # 1. The actor's worker is killed outright (an OOM kill): the server it started runs on,
            # and the actor Ray restarts takes it over: same process, same address, nothing cut.
            os.kill(first["actor_pid"], signal.SIGKILL)
            info = _restarted_actor(fleet, first["actor_pid"])
            assert info["adopted"] and info["pid"] == first["pid"] and info["address"] == first["address"]
            step = await client.step(episode.episode_id, 1, "bash", {"command": "cat /tmp/mark"})
            assert step.status == "OK" and step.observation.startswith("one"), step

            # 2. ray.kill (Ray ends the actor and kills its child processes): the server is not one
            # of them, and the restarted actor takes it over again.
            ray.kill(fleet.actors[0], no_restart=False)
            info = _restarted_actor(fleet, info["actor_pid"])
            assert info["adopted"] and info["pid"] == first["pid"], info
            step = await client.step(episode.episode_id, 2, "bash", {"command": "echo two >> /tmp/mark && cat /tmp/mark"})
            assert step.status == "OK" and step.observation.startswith("one\ntwo"), step

            # 3. The actor and its server die together and another process takes the port: the
            # restarted actor starts the server again (same id and state directory) on a new port,
            # the server re-adopts the episode, and the client finds it there.
            os.kill(info["actor_pid"], signal.SIGKILL)
            os.kill(info["pid"], signal.SIGKILL)
            port = int(first["address"].rsplit(":", 1)[1])
            held = _hold_port(port)
            step = await client.step(episode.episode_id, 3, "bash", {"command": "cat /tmp/mark"})
            assert step.status == "OK", step
            assert step.observation.startswith("one\ntwo") and "server restarted" in step.observation, step
            moved = _restarted_actor(fleet, info["actor_pid"])
            assert moved["address"] != first["address"] and not moved["adopted"] and moved["server_id"] == server_id
            assert client.episode_address(episode.episode_id) == moved["address"]
            summary = await client.close(episode.episode_id)
            assert summary["end_reason"] == "closed", summary
            await client.aclose()

        asyncio.run(scenario())
    finally:
        if held is not None:
            held.close()
        fleet.shutdown()
        leftovers = _containers(server_id)
        _remove_containers(server_id)
    assert leftovers == [], f"containers left: {leftovers}"


def test_a_client_follows_a_server_restarted_at_another_address_that_its_resolver_names():
    first = Server()
    where = {first.server_id: first.address}
    second = None
    try:

        async def before_restart() -> tuple:
            client = AsyncSweEnvClient(None, resolver=lambda: dict(where), restart_wait_s=60)
            episode = await client.reset(TASK, group_id="g")
            assert client.episode_address(episode.episode_id) == first.address
            assert (await client.step(episode.episode_id, 0, "bash", {"command": "echo kept > /tmp/mark"})).status == "OK"
            return client, episode

        loop = asyncio.new_event_loop()
        client, episode = loop.run_until_complete(before_restart())
        first.proc.kill()
        first.proc.wait()
        second = Server(server_id=first.server_id, state_dir=first.state_dir)
        assert second.address != first.address
        where[first.server_id] = second.address

        async def after_restart() -> None:
            step = await client.step(episode.episode_id, 1, "bash", {"command": "cat /tmp/mark"})
            assert step.status == "OK" and step.observation.startswith("kept"), step
            assert client.episode_address(episode.episode_id) == second.address and first.address not in client.addresses
            assert (await client.close(episode.episode_id))["end_reason"] == "closed"
            await client.aclose()

        loop.run_until_complete(after_restart())
        loop.close()
    finally:
        if second is not None:
            second.stop()
        else:
            first.proc.kill()
        _remove_containers(first.server_id)


def test_a_server_no_actor_owns_any_more_drains_once_the_orphan_grace_is_over(ray_cluster):
    """The job is gone (its actors killed for good, as when the driver exits): the server outlived
    its actor so a restarted one could take it over, but nothing will, so it stops by itself and
    removes its containers."""
    from swe_env.ray import SweEnvRayFleet

    ray = ray_cluster
    state = tempfile.mkdtemp(prefix="swe-env-ray-state-", dir=SCRATCH)
    fleet = SweEnvRayFleet(
        tasks=[str(DEMO_TASKS)],
        host="127.0.0.1",
        nodes=[n for n in ray.nodes() if n.get("Alive")][:1],
        args=("--state-dir", state, "--trajectory-dir", os.path.join(state, "trajectories"), "--log-level", "warn"),
        env={"SWE_ENV_RAY_ORPHAN_GRACE_S": "5"},
    )
    info = fleet.info()[0]
    try:

        async def start_one() -> None:
            client = fleet.client()
            await client.reset(TASK)
            await client.aclose()

        asyncio.run(start_one())
        assert len(_containers(info["server_id"])) == 1
        ray.kill(fleet.actors[0], no_restart=True)
        deadline = time.monotonic() + 120
        while (not _gone(info["pid"]) or _containers(info["server_id"])) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert _gone(info["pid"]), "the server outlived its fleet"
        assert _containers(info["server_id"]) == []
    finally:
        if not _gone(info["pid"]):
            os.kill(info["pid"], signal.SIGKILL)
        _remove_containers(info["server_id"])
