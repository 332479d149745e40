import asyncio
import socket
import threading

import pytest

from swe_env import AsyncSweEnv, AsyncSweEnvClient, NotFoundError, SweEnv, SweEnvClient, ToolCall
from swe_env.errors import FailedPreconditionError

from conftest import gold_command

TASK = "swe-env-demo__textkit-1"


def test_sync_round_trip_gold_fix_scores_1(server, demo_tasks):
    with SweEnv(TASK, server.address) as env:
        obs, info = env.reset(seed=7)
        assert "slugify" in obs
        assert info["base_commit"] == demo_tasks[TASK]["base_commit"]
        assert [t["function"]["name"] for t in info["tools"]] == ["bash", "submit_solution"]
        obs, reward, terminated, truncated, step_info = env.step({"name": "bash", "arguments": {"command": gold_command(demo_tasks[TASK]["patch"])}})
        assert step_info["exit_code"] == 0, obs
        assert (reward, terminated, truncated) == (0.0, False, False)
        obs, reward, terminated, truncated, step_info = env.step(ToolCall("submit_solution"))
        assert reward == 1.0
        assert terminated and not truncated
        assert step_info["report"]["resolved"] is True
        assert all(t["status"] == "TEST_STATUS_PASSED" for t in step_info["report"]["fail_to_pass"])


def test_async_round_trip_gold_fix_scores_1(server, demo_tasks):
    async def main():
        client = AsyncSweEnvClient(server.address)
        async with AsyncSweEnv(TASK, client) as env:
            await env.reset()
            # Raw model text with a hermes tool call, as a policy would emit it.
            text = '<tool_call>\n{"name": "bash", "arguments": {"command": %s}}\n</tool_call>' % __import__("json").dumps(gold_command(demo_tasks[TASK]["patch"]))
            _, _, _, _, info = await env.step(text)
            assert info["exit_code"] == 0
            _, reward, terminated, _, _ = await env.step("Done.\n<tool_call>\n{\"name\": \"submit_solution\", \"arguments\": {}}\n</tool_call>")
            assert reward == 1.0 and terminated
        await client.aclose()

    asyncio.run(main())


def test_no_fix_scores_0_and_text_without_a_tool_call_is_an_invalid_action(server):
    with SweEnv(TASK, server.address) as env:
        env.reset()
        obs, reward, terminated, _, info = env.step("I think the bug is in slug.py.")
        assert info["status"] == "INVALID_ACTION" and not terminated and reward == 0
        assert "submit_solution" in obs
        _, _, _, _, info = env.step("```bash\necho hi\n```")
        assert info["status"] == "OK"
        _, reward, terminated, _, info = env.step({"name": "submit_solution", "arguments": {}})
        assert terminated and reward == 0.0 and info["report"]["resolved"] is False


def test_errors_are_exception_classes(server):
    with SweEnvClient(server.address) as client:
        with pytest.raises(NotFoundError, match="unknown episode"):
            client.step("no-such-episode", 0, "bash", {"command": "true"})
        with pytest.raises(NotFoundError, match="unknown task_id"):
            client.reset("no/such-task")
        r = client.reset(TASK)
        with pytest.raises(FailedPreconditionError, match="expects step_index 0"):
            client.step(r.episode_id, 3, "bash", {"command": "true"})
        client.close(r.episode_id)


def test_reset_retried_with_the_same_episode_id_gives_the_same_episode(server):
    with SweEnvClient(server.address) as client:
        a = client.reset(TASK, episode_id="pytest-same-id-1")
        b = client.reset(TASK, episode_id="pytest-same-id-1")
        assert a.episode_id == b.episode_id == "pytest-same-id-1"
        assert len([c for c in server.containers()]) >= 1
        summary = client.close(a.episode_id)
        assert summary["end_reason"] == "closed"
        assert client.close(a.episode_id) == summary  # idempotent


class DroppingProxy:
    """A TCP proxy that can cut every connection, as a network blip or a restarted proxy would."""

    def __init__(self, target: str) -> None:
        host, port = target.rsplit(":", 1)
        self.target = (host, int(port))
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.address = f"127.0.0.1:{self.listener.getsockname()[1]}"
        self.sockets: list = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            with self.lock:
                self.sockets += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(a: socket.socket, b: socket.socket) -> None:
        try:
            while True:
                data = a.recv(65536)
                if not data:
                    break
                b.sendall(data)
        except OSError:
            pass
        finally:
            for s in (a, b):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        try:
            self.listener.shutdown(socket.SHUT_RDWR)  # wakes the blocked accept()
        except OSError:
            pass
        self.listener.close()
        self.drop_all()

    def drop_all(self) -> None:
        with self.lock:
            for s in self.sockets:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                    s.close()
                except OSError:
                    pass
            self.sockets = []


def test_a_step_retried_after_the_connection_drops_runs_once(server):
    proxy = DroppingProxy(server.address)

    async def main():
        client = AsyncSweEnvClient(proxy.address, retries=8, backoff_s=0.3)
        r = await client.reset(TASK)
        step = asyncio.ensure_future(client.step(r.episode_id, 0, "bash", {"command": "sleep 2; echo x >> /tmp/once; wc -l < /tmp/once"}))
        await asyncio.sleep(0.8)
        proxy.drop_all()  # mid-call: the client sees UNAVAILABLE and retries the same step_index
        result = await step
        assert client.retry_count >= 1  # the drop did interrupt the call
        assert result.observation.strip() == "1"
        check = await client.step(r.episode_id, 1, "bash", {"command": "wc -l < /tmp/once"})
        assert check.observation.strip() == "1"
        await client.close(r.episode_id)
        await client.aclose()

    try:
        asyncio.run(main())
    finally:
        proxy.close()


