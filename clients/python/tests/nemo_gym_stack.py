"""The pieces tests/test_nemo_gym_simple.py runs NeMo Gym 0.7 with: its servers started as ``ng_run``
starts them (``python app.py`` in the server's directory, the resolved global config in
``NEMO_GYM_CONFIG_DICT``, the server's name in ``NEMO_GYM_CONFIG_PATH``), and a scripted
Responses-API model server (a GPU model cannot run here) replaying a trajectory per task."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

from fastapi import FastAPI, Request

#: One scripted turn: a tool call (name, arguments), or a function of the model's input (the items
#: so far) returning one, or None for a final assistant message that ends the rollout.
Turn = Union[None, tuple, Callable[[List[Dict[str, Any]]], tuple]]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve_in_thread(app: Any, port: int) -> Any:
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    deadline = time.time() + 60
    while not server.started and time.time() < deadline:
        time.sleep(0.05)
    assert server.started, "uvicorn did not start"
    return server


def scripted_model(scripts: Dict[str, Sequence[Turn]], markers: Dict[str, str]) -> FastAPI:
    """POST /v1/responses: the task (found by its marker in the input) plays its script's next turn,
    the turn being the number of function calls already in the input; past the script, a message."""
    app = FastAPI()

    @app.post("/v1/responses")
    async def responses(request: Request) -> Dict[str, Any]:
        body = await request.json()
        items = body["input"] if isinstance(body["input"], list) else [{"role": "user", "content": body["input"]}]
        text = json.dumps(items)
        task = next(t for t, m in markers.items() if json.dumps(m)[1:-1] in text)
        turn_index = sum(1 for i in items if i.get("type") == "function_call")
        script = scripts[task]
        turn = script[turn_index] if turn_index < len(script) else None
        if callable(turn):
            turn = turn(items)
        return _response(body, _call(*turn) if turn else _message("Done."))

    return app


def _call(name: str, arguments: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    return {"type": "function_call", "id": f"fc_{uuid.uuid4().hex[:8]}", "call_id": f"call_{uuid.uuid4().hex[:8]}", "name": name, "arguments": json.dumps(arguments or {}), "status": "completed"}


def _message(text: str) -> Dict[str, Any]:
    return {"type": "message", "id": f"msg_{uuid.uuid4().hex[:8]}", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": text, "annotations": []}]}


def _response(body: Dict[str, Any], item: Dict[str, Any]) -> Dict[str, Any]:
    return {
        "id": f"resp_{uuid.uuid4().hex[:8]}",
        "created_at": time.time(),
        "model": "scripted",
        "object": "response",
        "output": [item],
        "parallel_tool_calls": False,
        "tool_choice": "auto",
        "tools": body.get("tools", []),
        "usage": {"input_tokens": 1, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 1, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 2},
    }


def last_tool_output(items: List[Dict[str, Any]]) -> str:
    outputs = [i for i in items if i.get("type") == "function_call_output"]
    assert outputs, "no tool output yet"
    return str(outputs[-1]["output"])


def remove_sandbox_by_hostname(server_id: str, hostname: str) -> None:
    """The environment failing under a rollout: its sandbox (found by the hostname the rollout's
    ``hostname`` printed) removed from outside, never by the model."""
    ids = subprocess.run(["docker", "ps", "-q", "--filter", f"label=swe-env.server={server_id}"], capture_output=True, text=True, check=True).stdout.split()
    names = {cid: subprocess.run(["docker", "inspect", "-f", "{{.Config.Hostname}}", cid], capture_output=True, text=True).stdout.strip() for cid in ids}
    match = [cid for cid, name in names.items() if name == hostname.strip()]
    assert len(match) == 1, f"no single sandbox has hostname {hostname!r}: {names}"
    subprocess.run(["docker", "rm", "-f", match[0]], capture_output=True, check=True)


class GymProcess:
    """One NeMo Gym server process, as ng_run starts it."""

    def __init__(self, directory: Path, name: str, config_yaml: str, pythonpath: str, log: Path) -> None:
        from nemo_gym.global_config import NEMO_GYM_CONFIG_DICT_ENV_VAR_NAME, NEMO_GYM_CONFIG_PATH_ENV_VAR_NAME

        env = dict(os.environ, PYTHONPATH=pythonpath, **{NEMO_GYM_CONFIG_DICT_ENV_VAR_NAME: config_yaml, NEMO_GYM_CONFIG_PATH_ENV_VAR_NAME: name})
        self.name = name
        self.log = log
        self._log_file = log.open("wb")
        self.proc = subprocess.Popen([sys.executable, "app.py"], cwd=directory, env=env, stdout=self._log_file, stderr=subprocess.STDOUT)

    def wait_listening(self, port: int, timeout_s: float = 240) -> None:
        deadline = time.time() + timeout_s
        while time.time() < deadline:
            assert self.proc.poll() is None, f"{self.name} exited: {self.log.read_text()[-3000:]}"
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    return
            time.sleep(0.2)
        raise AssertionError(f"{self.name} did not listen on {port}: {self.log.read_text()[-3000:]}")

    def stop(self) -> None:
        self.proc.terminate()  # uvicorn's shutdown runs the resources server's close_all
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=30)
        self._log_file.close()
