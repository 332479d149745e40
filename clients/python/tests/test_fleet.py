"""The client over a fleet of real servers (the Node CLI) on loopback: GRPO groups kept on one
server and spread over servers, a server that stops answering taken out with its episodes ended as
INFRA_ERROR, and a server that needs a bearer token and TLS."""
from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest

from swe_env import AsyncSweEnvClient
from swe_env.errors import SweEnvError

from conftest import Server

TASK = "swe-env-demo__minicalc-1"


@pytest.fixture()
def fleet():
    servers = [Server(("--max-episodes", "8")) for _ in range(3)]
    try:
        yield servers
    finally:
        for s in servers:
            if s.proc.poll() is None:
                s.stop()


def test_groups_stay_on_one_server_and_spread_over_the_fleet(fleet):
    async def main() -> None:
        client = AsyncSweEnvClient([s.address for s in fleet], info_ttl_s=0)
        infos = await client.refresh(everyone=True)
        assert all(info and info["max_episodes"] == 8 for info in infos.values())
        placed = []
        try:
            for group in ("g1", "g2", "g3"):
                for _ in range(3):
                    r = await client.reset(TASK, group_id=group)
                    placed.append((group, r.episode_id, r.address))
            for group in ("g1", "g2", "g3"):
                assert len({a for g, _, a in placed if g == group}) == 1
            assert len({a for _, _, a in placed}) >= 2
            step = await client.step(placed[0][1], 0, "bash", {"command": "echo placed"})
            assert step.observation == "placed\n"
        finally:
            for _, episode_id, _ in placed:
                await client.close(episode_id)
            await client.aclose()

    asyncio.run(main())


def test_prewarm_batch_readies_the_next_groups_where_their_resets_go(fleet):
    async def main() -> None:
        client = AsyncSweEnvClient([s.address for s in fleet], info_ttl_s=0)
        warmed = await client.prewarm_batch([(TASK, "next-1", 2), (TASK, "next-2", 2)])
        assert all(w["warm"] + w["starting"] == 2 for w in warmed)
        by_group = {"next-1": warmed[0]["address"], "next-2": warmed[1]["address"]}
        for _ in range(300):
            infos = await client.refresh(everyone=True)
            if all((infos[a] or {}).get("warm_sandboxes", 0) >= 2 for a in by_group.values()):
                break
            await asyncio.sleep(0.2)
        before = {a: infos[a]["warm_sandboxes"] for a in set(by_group.values())}
        started = []
        for group, address in by_group.items():
            for _ in range(2):
                r = await client.reset(TASK, group_id=group)
                assert r.address == address  # the group's Resets go where its sandboxes are warm
                started.append(r.episode_id)
        # Each group's server had its sandboxes warm before the group's Resets reached it.
        assert all(before[a] >= 2 for a in before)
        for episode_id in started:
            await client.close(episode_id)
        await client.aclose()

    asyncio.run(main())


def test_prefetch_sends_each_task_where_its_resets_go(fleet, demo_tasks):
    """Prefetch sends each task to the server a later Reset of a new group of it lands on (the task
    id's rendezvous rank, the rule Reset uses), one call per server; every group of a task prefers
    that server; unknown ids are reported."""

    async def main() -> None:
        client = AsyncSweEnvClient([s.address for s in fleet], info_ttl_s=0)
        ids = sorted(demo_tasks)
        result = await client.prefetch([*ids, "no-such-task"])
        assert result.unknown_task_ids == ["no-such-task"]
        assert result.ready, result
        prefetched = {t: state.address for state in result.images for t in state.task_ids}
        assert sorted(prefetched) == ids
        assert len(set(prefetched.values())) >= 2  # the tasks spread over the fleet
        for task_id in ids:
            for group in ("a", "b"):
                r = await client.reset(task_id, group_id=f"{task_id}-{group}")
                await client.close(r.episode_id)
                assert r.address == prefetched[task_id], (task_id, group)
        await client.aclose()

    asyncio.run(main())


def test_a_server_that_stops_answering_ends_its_episodes_as_infra_error(fleet):
    async def main() -> None:
        # The victim is not restarted: after a short wait for a restart its episodes are lost.
        client = AsyncSweEnvClient([s.address for s in fleet], info_ttl_s=0, retries=1, restart_wait_s=1)
        victim = fleet[1]
        on_victim = None
        probes = []
        # Every group of one task prefers one server: the bounded load spreads the open ones.
        for i in range(12):
            r = await client.reset(TASK, group_id=f"probe-{i}")
            if r.address == victim.address:
                on_victim = r
                break
            probes.append(r.episode_id)
        for episode_id in probes:
            await client.close(episode_id)
        assert on_victim is not None, "no group was placed on the victim"
        victim.proc.kill()  # a crash: no drain, no cleanup by the server
        victim.proc.wait(timeout=30)
        lost = await client.step(on_victim.episode_id, 0, "bash", {"command": "echo hi"})
        assert lost.status == "INFRA_ERROR" and lost.infra_error and lost.truncated
        assert lost.info["end_reason"] == "infra_error"
        assert victim.address in client.down
        after = await client.reset(TASK, group_id="after-crash")
        assert after.address != victim.address
        assert (await client.step(after.episode_id, 0, "bash", {"command": "echo alive"})).observation == "alive\n"
        await client.close(after.episode_id)
        summary = await client.close(on_victim.episode_id)
        assert summary["end_reason"] == "infra_error"
        await client.aclose()

    asyncio.run(main())
    # The crashed server's containers: its restart (same server id) would remove them; here the test does.
    subprocess.run(["bash", "-c", f"docker ps -aq --filter label=swe-env.server={fleet[1].server_id} | xargs -r docker rm -f"], capture_output=True)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_step_rides_across_a_server_restart(tmp_path):
    """A server killed with SIGKILL and restarted (same id, state directory and port) while a step
    waits: the step is answered by the restarted server in the same container, and the step whose
    answer went out before the crash is answered again from its record, not run twice. Then a
    second crash while a command runs: the step the client was waiting on is answered with the
    command's exit code (its output lost), and the command ran once."""
    port = _free_port()
    first = Server(server_id=f"pytest-restart-{os.getpid()}", state_dir=str(tmp_path), port=port)
    second = None
    third = None

    async def main() -> None:
        nonlocal second, third
        client = AsyncSweEnvClient(first.address, restart_wait_s=60)
        r = await client.reset(TASK)
        once = await client.step(r.episode_id, 0, "bash", {"command": "echo one >> /tmp/count; echo stepped"})
        assert once.observation == "stepped\n"
        first.proc.kill()
        first.proc.wait(timeout=30)

        async def restart_later() -> Server:
            await asyncio.sleep(2)
            return await asyncio.to_thread(Server, server_id=first.server_id, state_dir=first.state_dir, port=port)

        restarting = asyncio.create_task(restart_later())
        counted = await client.step(r.episode_id, 1, "bash", {"command": "wc -l < /tmp/count"})
        second = await restarting
        assert counted.status == "OK", counted.observation
        assert counted.observation.startswith("1\n"), counted.observation
        assert "server restarted" in counted.observation
        again = await client.step(r.episode_id, 0, "bash", {"command": "echo one >> /tmp/count; echo stepped"})
        assert again.observation == "stepped\n"
        assert (await client.step(r.episode_id, 2, "bash", {"command": "wc -l < /tmp/count"})).observation.startswith("1\n")

        container = subprocess.run(
            ["docker", "ps", "-q", "--filter", f"label=swe-env.episode={r.episode_id}", "--filter", "label=swe-env.role=episode"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()
        cut = asyncio.create_task(client.step(r.episode_id, 3, "bash", {"command": "sleep 4; echo two >> /tmp/count; (exit 5)"}))
        # The crash comes once the container's shell has started the command.
        for _ in range(300):
            started = subprocess.run(["docker", "exec", container, "cat", "/dev/shm/swe-env/start"], capture_output=True, text=True).stdout
            if started.startswith("step-3 "):
                break
            await asyncio.sleep(0.1)
        assert started.startswith("step-3 "), started
        second.proc.kill()
        second.proc.wait(timeout=30)
        third = await asyncio.to_thread(Server, server_id=first.server_id, state_dir=first.state_dir, port=port)
        answered = await cut
        assert answered.status == "OK", answered.observation
        assert answered.exit_code == 5
        assert answered.info.get("output_lost") is True
        assert "output was lost" in answered.observation
        assert (await client.step(r.episode_id, 4, "bash", {"command": "wc -l < /tmp/count"})).observation.startswith("2\n")
        assert (await client.close(r.episode_id))["end_reason"] == "closed"
        await client.aclose()

    try:
        asyncio.run(main())
    finally:
        if first.proc.poll() is None:
            first.proc.kill()
        if third is not None:
            third.stop()
        elif second is not None:
            second.stop()
        else:
            subprocess.run(["bash", "-c", f"docker ps -aq --filter label=swe-env.server={first.server_id} | xargs -r docker rm -f"], capture_output=True)


def _pki(directory: Path) -> dict:
    def run(*args: str) -> None:
        subprocess.run(args, check=True, capture_output=True, cwd=directory)

    run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=ca", "-keyout", "ca.key", "-out", "ca.pem")
    run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=server", "-keyout", "server.key", "-out", "server.csr")
    (directory / "san.ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    run("openssl", "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2", "-out", "server.pem", "-extfile", "san.ext")
    (directory / "token").write_text("python-token-0123456789abcdef\n")
    return {name: directory / name for name in ("ca.pem", "server.pem", "server.key", "token")}


def test_token_and_tls():
    with tempfile.TemporaryDirectory() as tmp:
        files = _pki(Path(tmp))
        server = Server(("--auth-token-file", str(files["token"]), "--tls-cert", str(files["server.pem"]), "--tls-key", str(files["server.key"])))
        port = server.address.rsplit(":", 1)[1]
        try:

            async def main() -> None:
                ca = files["ca.pem"].read_bytes()
                good = AsyncSweEnvClient(f"localhost:{port}", token="python-token-0123456789abcdef", root_certificates=ca)
                assert (await good.server_info(f"localhost:{port}"))["server_id"] == server.server_id
                assert len(await good.list_tasks()) > 0
                await good.aclose()
                # From the environment, as the integrations' workers get it.
                os.environ["SWE_ENV_AUTH_TOKEN"] = "python-token-0123456789abcdef"
                os.environ["SWE_ENV_CA_FILE"] = str(files["ca.pem"])
                try:
                    from_env = AsyncSweEnvClient(f"localhost:{port}")
                    assert len(await from_env.list_tasks()) > 0
                    await from_env.aclose()
                finally:
                    del os.environ["SWE_ENV_AUTH_TOKEN"], os.environ["SWE_ENV_CA_FILE"]
                anonymous = AsyncSweEnvClient(f"localhost:{port}", root_certificates=ca, retries=0)
                with pytest.raises(SweEnvError) as refused:
                    await anonymous.list_tasks()
                assert refused.value.code.name == "UNAUTHENTICATED"
                await anonymous.aclose()

            asyncio.run(main())
        finally:
            server.stop()


def test_a_dns_entry_stands_for_every_address_of_the_name():
    client = AsyncSweEnvClient(["dns:localhost:50999", "10.0.0.9:1"])
    assert "127.0.0.1:50999" in client.addresses and "10.0.0.9:1" in client.addresses
    assert not any(a.startswith("dns:") for a in client.addresses)
