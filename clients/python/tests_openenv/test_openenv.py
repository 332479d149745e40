"""swe-env served through OpenEnv (PyPI openenv 0.10.0): ``python -m swe_env.openenv`` over a real
swe-env server with the demo tasks, driven by OpenEnv's own clients (``MCPToolClient``, the
``GenericEnvClient`` of a plain ``/ws`` session, and HTTP for the Task API)."""
from __future__ import annotations

import asyncio
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, Tuple

import httpx
import pytest
from openenv.core.env_server.mcp_types import CallToolAction
from openenv.core.generic_client import GenericEnvClient
from openenv.core.mcp_client import MCPToolClient

from conftest import OpenEnvServer, Server, gold_command
from swe_env import SweEnvClient

TASK = "swe-env-demo__textkit-2"
TRAINERS_MD = Path(__file__).resolve().parents[3] / "docs" / "trainers.md"


def _client(openenv: OpenEnvServer) -> MCPToolClient:
    # A submit grades in a fresh container: far longer than OpenEnv's default 60 s on a loaded machine.
    return MCPToolClient(base_url=openenv.url, message_timeout_s=900)


def _bash(command: str) -> CallToolAction:
    return CallToolAction(tool_name="bash", arguments={"command": command})


SUBMIT = CallToolAction(tool_name="submit_solution", arguments={})


def _wait_for(condition: Callable[[], Any], what: str, timeout_s: float = 300) -> Any:
    """Polls ``condition`` until it is truthy; the bound is there only so a broken server fails the
    test instead of hanging it."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"gave up waiting for {what}")


def _assert_flags(metadata: Dict[str, Any], *, status: str = "OK", truncated: bool = False) -> None:
    assert metadata["status"] == status
    assert metadata["infra_error"] is False and metadata["mask"] is False
    assert metadata["truncated"] is truncated


def test_tools_are_listed_over_mcp_with_the_servers_schemas(openenv: OpenEnvServer, server: Server) -> None:
    with SweEnvClient(server.address) as swe:
        expected = {t["function"]["name"]: t["function"] for t in swe.get_task(TASK)["tools"]}
    assert set(expected) == {"bash", "submit_solution"}

    async def listed() -> Tuple[list, list]:
        async with _client(openenv) as env:
            before = await env.list_tools(use_cache=False)  # no reset needed
            await env.reset(task_id=TASK)
            after = await env.list_tools(use_cache=False)
            return before, after

    for tools in asyncio.run(listed()):
        assert {t.name: (t.description, t.input_schema) for t in tools} == {
            name: (f["description"], f["parameters"]) for name, f in expected.items()
        }
    assert server.leftovers() == []


def test_concurrent_sessions_each_hold_their_own_episode_gold_1_no_fix_0(openenv: OpenEnvServer, server: Server, demo_tasks: Dict[str, dict]) -> None:
    patch = demo_tasks[TASK]["patch"]

    async def run() -> Dict[str, Any]:
        written = {"gold": asyncio.Event(), "nofix": asyncio.Event()}

        async def gold() -> Tuple[str, Any, Any]:
            async with _client(openenv) as env:
                reset = await env.reset(task_id=TASK)
                applied = await env.step(_bash(gold_command(patch) + " && echo gold > /tmp/who"))
                written["gold"].set()
                return reset.observation.episode_id, applied, await env.step(SUBMIT)

        async def nofix() -> Tuple[str, Any, Any]:
            async with _client(openenv) as env:
                reset = await env.reset(task_id=TASK)
                wrote = await env.step(_bash("echo nofix > /tmp/who"))
                written["nofix"].set()
                return reset.observation.episode_id, wrote, await env.step(SUBMIT)

        async def observer() -> Tuple[str, Any, Any]:
            async with _client(openenv) as env:
                reset = await env.reset(task_id=TASK)
                # Only once both others have written to their containers: none of it shows here.
                await asyncio.gather(*(e.wait() for e in written.values()))
                looked = await env.step(_bash("cat /tmp/who; git status --porcelain; echo end"))
                return reset.observation.episode_id, looked, None

        results = await asyncio.gather(gold(), nofix(), observer())
        return dict(zip(("gold", "nofix", "observer"), results))

    results = asyncio.run(run())
    episode_ids = {r[0] for r in results.values()}
    assert len(episode_ids) == 3 and "" not in episode_ids

    _, applied, graded = results["gold"]
    assert applied.observation.metadata["exit_code"] == 0, applied.observation.result
    assert graded.reward == 1.0 and graded.done is True
    _assert_flags(graded.observation.metadata)
    assert graded.observation.metadata["terminated"] is True
    assert graded.observation.metadata["report"]["resolved"] is True
    assert graded.observation.metadata["episode_id"] == results["gold"][0]

    _, _, graded = results["nofix"]
    assert graded.reward == 0.0 and graded.done is True
    _assert_flags(graded.observation.metadata)
    assert graded.observation.metadata["report"]["resolved"] is False

    _, looked, _ = results["observer"]
    assert "No such file" in looked.observation.result and "textkit" not in looked.observation.result
    assert looked.reward == 0.0 and looked.done is False
    _assert_flags(looked.observation.metadata)
    assert server.leftovers() == []


def test_truncation_is_in_the_observations_metadata(openenv: OpenEnvServer, server: Server) -> None:
    async def run() -> Tuple[Any, Any, Any, str]:
        async with _client(openenv) as env:
            # Two steps at most, a truncated episode scores 0 (no grading).
            reset = await env.reset(task_id=TASK, options={"max_steps": 2, "truncation": "zero"})
            first = await env.step(_bash("true"))
            second = await env.step(_bash("true"))
            with pytest.raises(RuntimeError) as after:
                await env.step(_bash("true"))
            return reset, first, second, str(after.value)

    reset, first, second, after = asyncio.run(run())
    _assert_flags(reset.observation.metadata)
    _assert_flags(first.observation.metadata)
    assert first.done is False
    _assert_flags(second.observation.metadata, status="TRUNCATED_STEPS", truncated=True)
    assert second.done is True and second.reward == 0.0 and second.observation.metadata["terminated"] is False
    assert "has ended: reset to start another" in after
    assert server.leftovers() == []


def test_an_unknown_task_is_refused_clearly_and_the_session_goes_on(openenv: OpenEnvServer, server: Server) -> None:
    async def run() -> Tuple[str, str, str, Any]:
        async with _client(openenv) as env:
            errors = []
            for call in (lambda: env.reset(task_id="swe-env-demo__no-such-task"), lambda: env.step(_bash("true")), lambda: env.reset()):
                with pytest.raises(RuntimeError) as caught:
                    await call()
                errors.append(str(caught.value))
            await env.reset(split="tasks", index=0)  # the Task API's way to name a task
            return errors[0], errors[1], errors[2], await env.step(_bash("echo alive"))

    unknown, no_episode, no_task, alive = asyncio.run(run())
    assert "unknown task_id 'swe-env-demo__no-such-task'" in unknown
    assert "reset(task_id=...) first" in no_episode
    assert "reset needs task_id" in no_task
    assert alive.observation.result.strip() == "alive"

    splits = httpx.get(f"{openenv.url}/swe_env/splits").json()
    assert [s["name"] for s in splits] == ["tasks"]
    count = httpx.post(f"{openenv.url}/swe_env/num_tasks", json={"split": "tasks"}).json()["num_tasks"]
    assert count == 9
    missing = httpx.post(f"{openenv.url}/swe_env/num_tasks", json={"split": "nope"})
    assert missing.status_code == 404 and "unknown split 'nope'" in missing.json()["detail"]
    assert httpx.post(f"{openenv.url}/swe_env/task", json={"split": "tasks", "index": 99}).status_code == 400
    assert server.leftovers() == []


def test_idle_sessions_are_reaped_and_their_episodes_closed(server: Server) -> None:
    # OpenEnv's reaper looks every max(timeout / 4, 5) s. (A session may be reaped as soon as its
    # reset has answered: nothing here depends on when.)
    openenv = OpenEnvServer(server, ["--session-timeout", "1"])
    try:
        # A plain /ws session (OpenEnv's GenericEnvClient): reaped even though its socket stays open.
        plain = GenericEnvClient(base_url=openenv.url, message_timeout_s=900).sync()
        plain.connect()
        assert plain.reset(task_id=TASK).observation["episode_id"]

        # An MCP session whose client went away without closing it (a crashed trainer worker).
        async def abandon() -> str:
            env = _client(openenv)
            reset = await env.reset(task_id=TASK)
            await env.disconnect()  # the socket goes; the HTTP MCP session stays
            return reset.observation.episode_id

        assert asyncio.run(abandon())
        _wait_for(lambda: server.containers() == [], "the reaper to close both idle episodes")
        with pytest.raises(RuntimeError, match="was closed"):
            plain.step({"type": "call_tool", "tool_name": "bash", "arguments": {"command": "true"}})
        plain.close()
    finally:
        openenv.stop()
    assert server.leftovers() == []


def test_an_infra_error_is_masked_in_the_metadata() -> None:
    """The swe-env server dies under an episode: the tool call answers with infra_error (and mask)
    set, reward None and done, not an exception and not a 0."""
    swe = Server()
    # The client waits this long for a restarted server before the episode counts as lost.
    openenv = OpenEnvServer(swe, env={"SWE_ENV_RESTART_WAIT_S": "1"})
    try:
        async def run() -> Tuple[Any, Any]:
            async with _client(openenv) as env:
                reset = await env.reset(task_id=TASK)
                swe.proc.kill()
                swe.proc.wait()
                return reset, await env.step(_bash("echo hi"))

        reset, lost = asyncio.run(run())
    finally:
        openenv.stop()
        swe.leftovers(wait_s=0)  # the killed server's sandbox: removed here, not by it
        swe.stop()
    _assert_flags(reset.observation.metadata)
    meta = lost.observation.metadata
    assert meta["infra_error"] is True and meta["mask"] is True and meta["status"] == "INFRA_ERROR"
    assert lost.reward is None and lost.done is True


def test_stopping_the_server_closes_the_episodes_it_holds(server: Server) -> None:
    openenv = OpenEnvServer(server)
    try:
        async def open_sessions() -> None:
            for _ in range(2):
                env = _client(openenv)
                await env.reset(task_id=TASK)
                await env.disconnect()  # its HTTP MCP session stays open on the server

        asyncio.run(open_sessions())
        assert len(server.containers()) == 2
    finally:
        # uvicorn shuts down gracefully on SIGTERM, then re-raises it (exit -15).
        assert openenv.stop() in (0, -signal.SIGTERM)
    assert server.leftovers() == []


def test_the_docs_example_runs_as_written(openenv: OpenEnvServer, server: Server) -> None:
    section = TRAINERS_MD.read_text().split("\n## OpenEnv\n", 1)[1].split("\n## ", 1)[0]
    (example,) = re.findall(r"<!-- runnable -->\n```python\n(.*?)```", section, re.DOTALL)
    assert "http://127.0.0.1:8000" in example
    ran = subprocess.run(
        [sys.executable, "-c", example.replace("http://127.0.0.1:8000", openenv.url)], capture_output=True, text=True, timeout=900
    )
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.splitlines()
    assert lines[0] == "['bash', 'submit_solution']"
    assert lines[-1] == "1.0 True OK False False"
    assert server.leftovers() == []
