"""The swe_env resources server run by NeMo Gym 0.7's own machinery over real HTTP: its FastAPI app
from NeMo Gym's ``setup_webserver`` (session middleware, /reset, /step, /close), NeMo Gym's own
``GymnasiumAgent`` app with a real ``ServerClient`` resolving server names from a global config, and
rollouts posted to the agent's ``/run`` as ``ng_collect_rollouts`` does. The policy model is a
scripted Responses-API server (a GPU model server cannot run here)."""
from __future__ import annotations

import json
import socket
import threading
import time
import uuid
from typing import Any, Dict, Iterator, List, Tuple

import pytest
import requests
from fastapi import FastAPI, Request

import verl_support as vs
from swe_env import SweEnvClient
from swe_env.nemo_gym.dataset import build_rows

GOLD, NOFIX = "swe-env-demo__textkit-2", "swe-env-demo__minicalc-2"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(app: Any, port: int) -> Any:
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.time() + 30
    while not server.started and time.time() < deadline:
        time.sleep(0.05)
    assert server.started, "uvicorn did not start"
    return server


def _scripted_model(policies: Dict[str, List[Tuple[str, ...]]], markers: Dict[str, str]) -> Any:
    """POST /v1/responses: the next function call of the task's script (the turn is the number of
    function calls already in the input)."""
    app = FastAPI()

    @app.post("/v1/responses")
    async def responses(request: Request) -> Dict[str, Any]:
        body = await request.json()
        items = body["input"] if isinstance(body["input"], list) else [{"role": "user", "content": body["input"]}]
        text = json.dumps(items)
        task = next(t for t, m in markers.items() if json.dumps(m)[1:-1] in text)
        turn = sum(1 for i in items if i.get("type") == "function_call")
        action = policies[task][min(turn, len(policies[task]) - 1)]
        name, arguments = ("bash", {"command": action[1]}) if action[0] == "bash" else ("submit_solution", {})
        call = {"type": "function_call", "id": f"fc_{uuid.uuid4().hex[:8]}", "call_id": f"call_{uuid.uuid4().hex[:8]}", "name": name, "arguments": json.dumps(arguments), "status": "completed"}
        return {
            "id": f"resp_{uuid.uuid4().hex[:8]}",
            "created_at": time.time(),
            "model": "scripted",
            "object": "response",
            "output": [call],
            "parallel_tool_calls": False,
            "tool_choice": "auto",
            "tools": body.get("tools", []),
            "usage": {"input_tokens": 1, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 1, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 2},
        }

    return app


@pytest.fixture()
def gym(server: Any, demo_tasks: Dict[str, dict], monkeypatch: pytest.MonkeyPatch) -> Iterator[Dict[str, Any]]:
    from omegaconf import OmegaConf

    import nemo_gym.global_config as gc

    from nemo_gym.config_types import BaseServerConfig, ModelServerRef, ResourcesServerRef
    from nemo_gym.server_utils import ServerClient
    from responses_api_agents.gymnasium_agent.app import GymnasiumAgent, GymnasiumAgentConfig
    from swe_env.nemo_gym.app import SweEnvResourcesServer, SweEnvResourcesServerConfig

    ports = {name: _port() for name in ("resources", "agent", "model")}
    global_config = OmegaConf.create(
        {
            "swe_env_resources": {"resources_servers": {"swe_env": {"host": "127.0.0.1", "port": ports["resources"], "entrypoint": "app.py", "domain": "coding"}}},
            "policy_model": {"responses_api_models": {"scripted": {"host": "127.0.0.1", "port": ports["model"], "entrypoint": "app.py"}}},
            "swe_env_gymnasium_agent": {"responses_api_agents": {"gymnasium_agent": {"host": "127.0.0.1", "port": ports["agent"], "entrypoint": "app.py"}}},
        }
    )
    # As ng_run hands the resolved config to the servers it spawns.
    monkeypatch.setenv(gc.NEMO_GYM_CONFIG_DICT_ENV_VAR_NAME, OmegaConf.to_yaml(global_config))
    monkeypatch.setattr(gc, "_GLOBAL_CONFIG_DICT", None)
    client = ServerClient(head_server_config=BaseServerConfig(host="127.0.0.1", port=_port()), global_config_dict=global_config)
    resources = SweEnvResourcesServer(
        config=SweEnvResourcesServerConfig(host="127.0.0.1", port=ports["resources"], entrypoint="app.py", name="swe_env_resources", domain="coding", env_addr=server.address),
        server_client=client,
    )
    agent = GymnasiumAgent(
        config=GymnasiumAgentConfig(
            host="127.0.0.1",
            port=ports["agent"],
            entrypoint="app.py",
            name="swe_env_gymnasium_agent",
            resources_server=ResourcesServerRef(type="resources_servers", name="swe_env_resources"),
            model_server=ModelServerRef(type="responses_api_models", name="policy_model"),
            max_steps=6,
        ),
        server_client=client,
    )
    policies = {GOLD: [("bash", vs.gold_bash(demo_tasks[GOLD]["patch"])), ("submit",)], NOFIX: [("bash", "git status --short"), ("submit",)]}
    markers = {t: vs.marker_for(demo_tasks[t]) for t in policies}
    running = [
        _serve(resources.setup_webserver(), ports["resources"]),
        _serve(agent.setup_webserver(), ports["agent"]),
        _serve(_scripted_model(policies, markers), ports["model"]),
    ]
    try:
        yield {"agent_url": f"http://127.0.0.1:{ports['agent']}", "resources_url": f"http://127.0.0.1:{ports['resources']}"}
    finally:
        for s in running:
            s.should_exit = True


def test_gymnasium_agent_rollouts_solved_and_not(gym: Dict[str, Any], server: Any) -> None:
    with SweEnvClient(server.address) as client:
        rows = {r["task_id"]: r for r in build_rows(client)}
    assert {t["name"] for t in rows[GOLD]["responses_create_params"]["tools"]} == {"bash", "submit_solution"}
    results = {}
    for task in (GOLD, NOFIX):
        response = requests.post(f"{gym['agent_url']}/run", json=rows[task], timeout=300)
        assert response.status_code == 200, response.text
        results[task] = response.json()
    assert results[GOLD]["reward"] == 1.0 and results[GOLD]["terminated"] is True
    assert results[GOLD]["info"]["resolved"] is True and results[GOLD]["info"]["mask_sample"] is False
    assert results[NOFIX]["reward"] == 0.0 and results[NOFIX]["info"]["resolved"] is False
    # The bash output came back to the model as a function_call_output of the right call.
    outputs = [i for i in results[NOFIX]["response"]["output"] if i.get("type") == "function_call_output"]
    calls = [i for i in results[NOFIX]["response"]["output"] if i.get("type") == "function_call"]
    assert outputs and outputs[0]["call_id"] == calls[0]["call_id"]
    deadline = time.time() + 30
    while server.containers() and time.time() < deadline:
        time.sleep(0.2)
    assert server.containers() == []  # /close (supports_explicit_close) removed both sandboxes
