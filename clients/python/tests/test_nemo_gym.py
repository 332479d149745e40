"""The swe_env resources server run by NeMo Gym 0.7's own machinery over real HTTP: its FastAPI app
from NeMo Gym's ``setup_webserver`` (session middleware, /reset, /step, /close), our agent (NeMo
Gym's own ``GymnasiumAgent`` app, subclassed) with a real ``ServerClient`` resolving server names
from a global config, and rollouts posted to ``/run`` as ``ng_collect_rollouts`` posts them. The shipped ``ng_run`` config is read by NeMo Gym's
own config parser and its servers resolved and started the way ``ng_run``'s launcher does. The
policy model is a scripted Responses-API server (a GPU model server cannot run here).
``ng_run``/``ng_collect_rollouts`` themselves are not run: their CLI modules import NeMo Gym's whole
dependency set (devtools, anthropic, psutil, mlflow, wandb...), which the test venv does not
install (nemo-gym is installed with --no-deps)."""
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
from typing import Any, Dict, Iterator, List, Tuple

import pytest
import requests
from fastapi import FastAPI, HTTPException, Request

import verl_support as vs
from swe_env import SweEnvClient
from swe_env.nemo_gym.dataset import build_rows

GOLD, NOFIX, MODEL_FAILS = "swe-env-demo__textkit-2", "swe-env-demo__minicalc-2", "swe-env-demo__intervals-2"
MISSING = "swe-env-demo__no-such-task"


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
        if action[0] == "fail":
            raise HTTPException(status_code=500, detail="the model server failed")
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
    import nemo_gym.server_utils as server_utils

    from nemo_gym.config_types import BaseServerConfig, ModelServerRef, ResourcesServerRef
    from nemo_gym.server_utils import ServerClient
    from swe_env.nemo_gym.agent import SweEnvAgent, SweEnvAgentConfig
    from swe_env.nemo_gym.app import SweEnvResourcesServer, SweEnvResourcesServerConfig

    ports = {name: _port() for name in ("resources", "agent", "model")}
    global_config = OmegaConf.create(
        {
            "swe_env_resources": {"resources_servers": {"swe_env": {"host": "127.0.0.1", "port": ports["resources"], "entrypoint": "app.py", "domain": "coding"}}},
            "policy_model": {"responses_api_models": {"scripted": {"host": "127.0.0.1", "port": ports["model"], "entrypoint": "app.py"}}},
            "swe_env_agent": {"responses_api_agents": {"swe_env_agent": {"host": "127.0.0.1", "port": ports["agent"], "entrypoint": "app.py"}}},
        }
    )
    # As ng_run hands the resolved config to the servers it spawns.
    monkeypatch.setenv(gc.NEMO_GYM_CONFIG_DICT_ENV_VAR_NAME, OmegaConf.to_yaml(global_config))
    monkeypatch.setattr(gc, "_GLOBAL_CONFIG_DICT", None)
    # NeMo Gym's aiohttp session is one per process, made in the first event loop that posts (each
    # server is a process of its own under ng_run): a fixture's servers must not get the session a
    # previous fixture's (stopped) loop made.
    monkeypatch.setattr(server_utils, "_GLOBAL_AIOHTTP_CLIENT", None)
    client = ServerClient(head_server_config=BaseServerConfig(host="127.0.0.1", port=_port()), global_config_dict=global_config)
    resources = SweEnvResourcesServer(
        config=SweEnvResourcesServerConfig(host="127.0.0.1", port=ports["resources"], entrypoint="app.py", name="swe_env_resources", domain="coding", env_addr=server.address),
        server_client=client,
    )
    agent = SweEnvAgent(
        config=SweEnvAgentConfig(
            host="127.0.0.1",
            port=ports["agent"],
            entrypoint="app.py",
            name="swe_env_agent",
            resources_server=ResourcesServerRef(type="resources_servers", name="swe_env_resources"),
            model_server=ModelServerRef(type="responses_api_models", name="policy_model"),
            max_steps=6,
        ),
        server_client=client,
    )
    policies = {
        GOLD: [("bash", vs.gold_bash(demo_tasks[GOLD]["patch"])), ("submit",)],
        NOFIX: [("bash", "git status --short"), ("submit",)],
        MODEL_FAILS: [("bash", "git status --short"), ("fail",)],
    }
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


def _post_as_the_collector(url: str, row: Dict[str, Any]) -> Dict[str, Any]:
    """What ng_collect_rollouts (nemo_gym.rollout_collection 0.7, ``_post_subroutine``) does with a
    flat row: POST it to /run (of the environment server, whose legacy_agent relays the agent's
    status and body unchanged), NeMo Gym's ``raise_for_status`` (an error there ends the whole
    collection unless route_failures_to_sidecar is set), then the JSON."""
    import asyncio

    import aiohttp

    from nemo_gym.server_utils import get_response_json, raise_for_status

    async def post() -> Dict[str, Any]:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=600)) as session:
            async with session.post(f"{url}/run", json=row) as res:
                await raise_for_status(res)
                return await get_response_json(res)

    return asyncio.run(post())


def test_collection_survives_a_refused_reset_and_a_model_error(gym: Dict[str, Any], server: Any) -> None:
    """A refused Reset and a model server answering 500 mid-rollout are failure rows that the
    collector routes to its failures sidecar (never trained or scored); the good rows around them
    come back whole; no sandbox is left (Docker). Before: both /run calls answered 500, which ends
    ng_collect_rollouts with none of the rows written."""
    with SweEnvClient(server.address) as client:
        rows = {r["task_id"]: r for r in build_rows(client)}
    missing = dict(rows[NOFIX], task_id=MISSING)
    results = {}
    try:
        for name, row in ((GOLD, rows[GOLD]), (MISSING, missing), (MODEL_FAILS, rows[MODEL_FAILS]), (NOFIX, rows[NOFIX])):
            results[name] = _post_as_the_collector(gym["agent_url"], row)  # raises on a non-2xx answer
        # The collector's routing key (rollout_collection.NG_FAILURE_CLASS_KEY): a failure goes to
        # the sidecar, the rest to the rollouts file.
        assert {t: r.get("_ng_failure_class") for t, r in results.items()} == {GOLD: None, MISSING: "agent_run_error", MODEL_FAILS: "agent_run_error", NOFIX: None}
        assert "NotFound" in results[MISSING]["failure_reason"] and results[MISSING]["mask_sample"] is True
        assert "500" in results[MODEL_FAILS]["failure_reason"] and results[MODEL_FAILS]["mask_sample"] is True
        assert (results[GOLD]["reward"], results[GOLD]["mask_sample"], results[GOLD]["info"]["resolved"]) == (1.0, False, True)
        assert (results[NOFIX]["reward"], results[NOFIX]["mask_sample"]) == (0.0, False)
    finally:
        leftovers = server.leftovers()
    assert leftovers == []  # the model error's sandbox was closed by the agent's /close, the refused one never stayed


def test_ng_run_config_validates_and_starts_from_the_layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The shipped config passes NeMo Gym's own config parser (its validation wants a dataset
    license) and every server in it is found and started the way ng_run's launcher does
    (nemo_gym/cli/env.py ``RunHelper._start``: the server directory ``<type>/<name>`` resolved under
    the search roots by ``_resolve_under_cwd_or_install`` with requirements.txt or pyproject.toml in
    it, the entrypoint relative to it, ``python <entrypoint>`` run there with the resolved config).
    Before: no license (AlmostServerError) and an absolute entrypoint (the launcher's assertion)."""
    from omegaconf import DictConfig, OmegaConf

    import nemo_gym
    from nemo_gym.global_config import NEMO_GYM_CONFIG_DICT_ENV_VAR_NAME, NEMO_GYM_CONFIG_PATH_ENV_VAR_NAME, GlobalConfigDictParser, GlobalConfigDictParserConfig
    from swe_env.nemo_gym.layout import write_root

    root = write_root(str(tmp_path / "gym_root"), requirement="swe-env-client @ file://" + str(Path(__file__).resolve().parents[1]))
    monkeypatch.setenv("NEMO_GYM_EXTRA_ROOTS", str(root))
    monkeypatch.chdir(tmp_path)
    initial = DictConfig(
        {
            "config_paths": ["resources_servers/swe_env/configs/swe_env.yaml"],
            "policy_base_url": "http://127.0.0.1:1/v1", "policy_api_key": "unused", "policy_model_name": "scripted",
            "policy_model": {"responses_api_models": {"openai_model": {"entrypoint": "app.py"}}},
            "dry_run": True,
        }
    )
    config = GlobalConfigDictParser().parse(GlobalConfigDictParserConfig(initial_global_config_dict=initial, skip_load_from_cli=True, skip_load_from_dotenv=True, offline=True))
    assert config["swe_env_agent"]["responses_api_agents"]["swe_env_agent"]["datasets"][0]["license"]

    def is_server_dir(d: Path) -> bool:  # ng_run's _resolve_server_dir validator
        return (d / "requirements.txt").exists() or (d / "pyproject.toml").exists()

    started = []
    for top_level in ("swe_env_resources", "swe_env_agent", "swe_env_environment_server"):
        (kind, block), = config[top_level].items()
        (name, server_config), = block.items()
        entrypoint = Path(server_config["entrypoint"])
        assert not entrypoint.is_absolute()  # ng_run: assert not entrypoint_fpath.is_absolute()
        directory = nemo_gym._resolve_under_cwd_or_install(Path(kind, name), validator=is_server_dir)
        assert is_server_dir(directory) and (directory / entrypoint).is_file(), directory
        if kind == "environment_servers":
            continue  # NeMo Gym's own legacy_agent, from its install root
        assert directory.is_relative_to(root)
        # As ng_run starts it (in its directory, the resolved config in the environment); dry_run
        # makes run_webserver return once the server object is built from that config.
        env = dict(os.environ, PYTHONPATH=vs.pythonpath(), **{NEMO_GYM_CONFIG_DICT_ENV_VAR_NAME: OmegaConf.to_yaml(config), NEMO_GYM_CONFIG_PATH_ENV_VAR_NAME: top_level})
        done = subprocess.run([sys.executable, str(entrypoint)], cwd=directory, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        started.append(name)
    assert started == ["swe_env", "swe_env_agent"]
