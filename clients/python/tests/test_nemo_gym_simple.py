"""swe-env behind NeMo Gym 0.7's BASE resources-server routes (swe_env.nemo_gym.resources:
/seed_session, /bash, /submit_solution, /verify), driven by NeMo Gym's own machinery: the shipped
``ng_run`` config resolved by its config parser, its servers (our resources server, NeMo Gym's
``simple_agent`` and its ``legacy_agent`` environment server) each started as ng_run starts them,
and its rollout collector (``RolloutCollectionHelper.run_from_config``, what ``ng_collect_rollouts``
runs) writing the rollouts and the failures sidecar. The policy is a scripted Responses-API server
replaying a gold-patch trajectory, a no-fix one and one whose sandbox the engine loses
(INFRA_ERROR); a row whose Reset swe-env refuses rides along. Against a real swe-env server and
Docker; every sandbox is checked gone."""
from __future__ import annotations

import asyncio
import json
import sys
import uuid
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List

import pytest
import requests
from fastapi import HTTPException
from omegaconf import DictConfig, OmegaConf

import nemo_gym_stack as st
import verl_support as vs
from swe_env import SweEnvClient
from swe_env.nemo_gym.dataset import build_rows

# NeMo Gym's collector imports anthropic & co., kept out of the shared venv (scripts/setup-python.sh).
COLLECTOR_DEPS = Path(sys.prefix) / "nemo-gym-collector"
GOLD, NOFIX, INFRA = "swe-env-demo__textkit-2", "swe-env-demo__minicalc-2", "swe-env-demo__intervals-2"
MODEL_FAILS = "swe-env-demo__intervals-3"
MISSING = "swe-env-demo__no-such-task"
AGENT = "swe_env_simple_agent"
SERVERS = {  # top-level name -> (server type, server name)
    "swe_env_simple_resources": ("resources_servers", "swe_env_simple"),
    AGENT: ("responses_api_agents", "simple_agent"),
    "swe_env_simple_environment_server": ("environment_servers", "legacy_agent"),
}


def _global_config(root: Path, ports: Dict[str, int], env_addr: str, idle_timeout_s: float) -> DictConfig:
    """The shipped config, through NeMo Gym's own parser, with this test's ports and server."""
    from nemo_gym.global_config import GlobalConfigDictParser, GlobalConfigDictParserConfig

    overrides: Dict[str, Any] = {name: {kind: {server: {"host": "127.0.0.1", "port": ports[name]}}} for name, (kind, server) in SERVERS.items()}
    overrides["swe_env_simple_resources"]["resources_servers"]["swe_env_simple"] |= {"env_addr": env_addr, "idle_timeout_s": idle_timeout_s}
    overrides[AGENT]["responses_api_agents"]["simple_agent"]["max_steps"] = 8
    initial = DictConfig(
        {
            "config_paths": ["resources_servers/swe_env_simple/configs/swe_env_simple.yaml"],
            "policy_model": {"responses_api_models": {"scripted": {"entrypoint": "app.py", "host": "127.0.0.1", "port": ports["policy_model"]}}},
            "head_server": {"host": "127.0.0.1", "port": ports["head"]},
            **overrides,
        }
    )
    return GlobalConfigDictParser().parse(GlobalConfigDictParserConfig(initial_global_config_dict=initial, skip_load_from_cli=True, skip_load_from_dotenv=True, offline=True))


def _server_dir(root: Path, kind: str, name: str) -> Path:
    import nemo_gym

    return Path(nemo_gym._resolve_under_cwd_or_install(Path(kind, name), validator=lambda d: (d / "requirements.txt").exists() or (d / "pyproject.toml").exists()))


def _start_stack(server: Any, demo_tasks: Dict[str, dict], tmp: Path, idle_timeout_s: float, patch: pytest.MonkeyPatch) -> Dict[str, Any]:
    """The servers ng_run starts for the shipped config (and the scripted policy model), the
    process-wide settings they and the collector read set on ``patch``; ``stop`` ends them all."""
    import nemo_gym.global_config as gc
    import nemo_gym.server_utils as server_utils
    from swe_env.nemo_gym.layout import write_root

    root = write_root(str(tmp / "gym_root"), requirement="swe-env-client")
    patch.setenv("NEMO_GYM_EXTRA_ROOTS", str(root))
    patch.chdir(tmp)
    ports = {name: st.free_port() for name in (*SERVERS, "policy_model", "head")}
    config = _global_config(root, ports, server.address, idle_timeout_s)
    config_yaml = OmegaConf.to_yaml(config)
    # As ng_run hands the resolved config to what it starts; the collector reads it the same way.
    patch.setenv(gc.NEMO_GYM_CONFIG_DICT_ENV_VAR_NAME, config_yaml)
    patch.setattr(gc, "_GLOBAL_CONFIG_DICT", None)
    patch.setattr(server_utils, "_GLOBAL_AIOHTTP_CLIENT", None)
    patch.syspath_prepend(str(COLLECTOR_DEPS))

    def infra_turn(items: List[Dict[str, Any]]) -> tuple:
        st.remove_sandbox_by_hostname(server.server_id, st.last_tool_output(items))
        return ("bash", {"command": "echo after"})

    def model_error(items: List[Dict[str, Any]]) -> tuple:
        raise HTTPException(status_code=500, detail="the model server failed")

    scripts = {
        MODEL_FAILS: [("bash", {"command": "git status --short"}), model_error],
        GOLD: [("bash", {"command": vs.gold_bash(demo_tasks[GOLD]["patch"])}), ("submit_solution", {}), None],
        NOFIX: [("bash", {"command": "git status --short"}), ("submit_solution", {}), None],
        INFRA: [("bash", {"command": "hostname"}), infra_turn, ("submit_solution", {}), None],
    }
    markers = {t: vs.marker_for(demo_tasks[t]) for t in scripts}
    model = st.serve_in_thread(st.scripted_model(scripts, markers), ports["policy_model"])
    processes: List[st.GymProcess] = []

    def stop() -> None:
        try:
            for process in processes:
                process.stop()
        finally:
            model.should_exit = True

    try:
        for name, (kind, server_name) in SERVERS.items():
            processes.append(st.GymProcess(_server_dir(root, kind, server_name), name, config_yaml, vs.pythonpath(), tmp / f"{name}.log"))
        for process in processes:
            process.wait_listening(ports[process.name])
    except BaseException:
        stop()
        raise
    return {"resources_url": f"http://127.0.0.1:{ports['swe_env_simple_resources']}", "processes": processes, "stop": stop}


@pytest.fixture(scope="module")
def gym_stacks(server: Any, demo_tasks: Dict[str, dict], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[float], Dict[str, Any]]]:
    """The module's stack for a reaper's idle timeout: the tests that wait for the reaper share one
    (a stack's start is most of a test's time), one stack runs at a time (ng_run's settings are
    process-wide), and the last is stopped when the module ends, whatever its tests did."""
    current: Dict[str, Any] = {}

    def stop_current() -> None:
        if current:
            try:
                current["stack"]["stop"]()
            finally:
                current.pop("patch").undo()
                current.clear()

    def stack_for(idle_timeout_s: float) -> Dict[str, Any]:
        if current.get("idle_timeout_s") != idle_timeout_s:
            stop_current()
            patch = pytest.MonkeyPatch()
            current["patch"] = patch
            current["stack"] = _start_stack(server, demo_tasks, tmp_path_factory.mktemp("gym"), idle_timeout_s, patch)
            current["idle_timeout_s"] = idle_timeout_s
        return current["stack"]

    try:
        yield stack_for
    finally:
        stop_current()


@pytest.fixture()
def gym_stack(request: pytest.FixtureRequest, gym_stacks: Callable[[float], Dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Dict[str, Any]:
    """The stack for the test's idle timeout (``idle_timeout_s`` on the test function, 1800 unless
    set), with NeMo Gym's per-process config and aiohttp session read afresh by this test's
    collector, and the test's own directory for the collector's files."""
    import nemo_gym.global_config as gc
    import nemo_gym.server_utils as server_utils

    stack = gym_stacks(float(getattr(request.function, "idle_timeout_s", 1800)))
    monkeypatch.setattr(gc, "_GLOBAL_CONFIG_DICT", None)
    monkeypatch.setattr(server_utils, "_GLOBAL_AIOHTTP_CLIENT", None)
    return dict(stack, tmp=tmp_path)


def _collect(rows: List[Dict[str, Any]], tmp: Path) -> Dict[str, Any]:
    """NeMo Gym's collector, as ``ng_collect_rollouts`` runs it: rollouts and the failures sidecar."""
    from nemo_gym.rollout_collection import RolloutCollectionConfig, RolloutCollectionHelper

    inputs, output = tmp / "swe_env.jsonl", tmp / "rollouts.jsonl"
    inputs.write_text("".join(json.dumps(r) + "\n" for r in rows))
    config = RolloutCollectionConfig(
        agent_name=AGENT, input_jsonl_fpath=str(inputs), output_jsonl_fpath=str(output),
        route_failures_to_sidecar=True, disable_health_check=True, num_samples_in_parallel=2,
    )

    async def run() -> None:
        import nemo_gym.server_utils as server_utils

        try:
            await RolloutCollectionHelper().run_from_config(config)
        finally:  # the collector's process-wide aiohttp session, made in this loop
            if server_utils._GLOBAL_AIOHTTP_CLIENT is not None:
                await server_utils._GLOBAL_AIOHTTP_CLIENT.close()

    asyncio.run(run())
    failures = output.with_name("rollouts_failures.jsonl")
    read = lambda p: [json.loads(line) for line in p.read_text().splitlines() if line.strip()] if p.exists() else []  # noqa: E731
    aggregate = output.with_name("rollouts_aggregate_metrics.json")
    metrics = json.loads(aggregate.read_text()) if aggregate.exists() else None
    return {"rollouts": read(output), "failures": read(failures), "metrics": metrics}


def test_simple_agent_and_collector_gold_nofix_infra_refused(gym_stack: Dict[str, Any], server: Any) -> None:
    """Gold patch: 1. No fix: 0. A sandbox the engine lost: masked (mask_sample, failure_kind),
    not a trainable 0. A Reset swe-env refused: the rollout never ran, a failures-sidecar row, not
    in the rollouts. No sandbox is left."""
    with SweEnvClient(server.address) as client:
        rows = {r["task_id"]: r for r in build_rows(client, agent=AGENT)}
    assert {t["name"] for t in rows[GOLD]["responses_create_params"]["tools"]} == {"bash", "submit_solution"}
    batch = [rows[GOLD], rows[NOFIX], rows[INFRA], dict(rows[NOFIX], task_id=MISSING)]
    try:
        out = _collect(batch, gym_stack["tmp"])
    finally:
        leftovers = server.leftovers()
    by_task = {r["task_id"]: r for r in out["rollouts"]}
    assert sorted(by_task) == sorted([GOLD, NOFIX, INFRA]), out
    gold, nofix, infra = by_task[GOLD], by_task[NOFIX], by_task[INFRA]
    assert (gold["reward"], gold["mask_sample"], gold["resolved"], gold["status"]) == (1.0, False, True, "OK"), gold
    assert (nofix["reward"], nofix["mask_sample"], nofix["resolved"]) == (0.0, False, False), nofix
    assert infra["mask_sample"] is True and infra["failure_kind"] == "swe_env:infra_error" and infra["instance_config"]["mask_sample"] is True, infra
    # The model saw its bash output as the function_call_output of the right call.
    items = nofix["response"]["output"]
    calls = [i for i in items if i.get("type") == "function_call"]
    outputs = [i for i in items if i.get("type") == "function_call_output"]
    assert outputs and outputs[0]["call_id"] == calls[0]["call_id"] and "INFRA" not in outputs[0]["output"]
    # The refused Reset: the collector's failures sidecar (the row by its index in the batch), no reward.
    (failure,) = out["failures"]
    assert (failure["_ng_task_index"], failure["_ng_failure_class"]) == (3, "agent_run_error"), failure
    assert "unknown task_id" in failure["_ng_failure_response_body"] and "reward" not in failure
    # NeMo Gym's own aggregate: the masked rollout is out of the mean (1 and 0: 0.5, not 0.33).
    (key_metrics,) = [m["key_metrics"] for m in out["metrics"] if m["agent_ref"]["name"] == AGENT]
    assert (key_metrics["mean/reward"], key_metrics["coverage/masked_rollouts"]) == (0.5, 1), key_metrics
    assert leftovers == []


def test_verify_after_the_idle_reaper_is_masked_and_nothing_leaks(gym_stack: Dict[str, Any], server: Any) -> None:
    """A session nobody verifies (an agent that died after /seed_session) is reaped: its sandbox
    closed; a /verify that comes after is a masked session_lost, never a 0. Over HTTP with NeMo
    Gym's session cookie; no call between the seed and the reaper, so no timing race."""
    http = requests.Session()
    url = gym_stack["resources_url"]
    seeded = http.post(f"{url}/seed_session", json={"task_id": NOFIX, "responses_create_params": {"input": "x"}}, timeout=300)
    assert seeded.status_code == 200, seeded.text  # the Reset succeeded: the episode has its sandbox
    assert server.leftovers(wait_s=120) == []  # the reaper (idle_timeout_s=3) closed it
    verified = http.post(f"{url}/verify", json={"responses_create_params": {"input": "x"}, "response": _empty_response()}, timeout=300)
    assert verified.status_code == 200, verified.text
    result = verified.json()
    assert (result["mask_sample"], result["failure_kind"]) == (True, "session_lost"), result
    said = http.post(f"{url}/bash", json={"command": "true"}, timeout=300)
    assert said.status_code == 200 and "No swe-env episode" in said.text, said.text


test_verify_after_the_idle_reaper_is_masked_and_nothing_leaks.idle_timeout_s = 3  # type: ignore[attr-defined]


def _empty_response() -> Dict[str, Any]:
    return {"id": f"resp_{uuid.uuid4().hex[:8]}", "created_at": 0.0, "model": "scripted", "object": "response", "output": [], "parallel_tool_calls": False, "tool_choice": "auto", "tools": []}


def test_a_model_error_is_a_sidecar_row_and_its_sandbox_is_reaped(gym_stack: Dict[str, Any], server: Any) -> None:
    """The model server failing mid-rollout: NeMo Gym's simple agent raises, so its /run fails and
    the collector writes a failures-sidecar row (no reward, not in the rollouts). The agent never
    calls /verify after that: the episode's sandbox goes with the idle reaper."""
    with SweEnvClient(server.address) as client:
        rows = {r["task_id"]: r for r in build_rows(client, agent=AGENT)}
    try:
        # NOFIX rides along: NeMo Gym's collector fails a run in which no rollout produced a row.
        out = _collect([rows[MODEL_FAILS], rows[NOFIX]], gym_stack["tmp"])
        leftovers = server.leftovers(wait_s=120)  # the reaper (idle_timeout_s=3)
    finally:
        server.leftovers(wait_s=0)
    assert [r["task_id"] for r in out["rollouts"]] == [NOFIX] and out["rollouts"][0]["reward"] == 0.0, out["rollouts"]
    (failure,) = out["failures"]
    assert failure["_ng_task_index"] == 0, failure
    assert failure["_ng_failure_class"] == "agent_run_error" and "reward" not in failure, failure
    assert "model server failed" in failure["_ng_failure_response_body"], failure
    assert leftovers == []


test_a_model_error_is_a_sidecar_row_and_its_sandbox_is_reaped.idle_timeout_s = 3  # type: ignore[attr-defined]


def test_environment_server_session_contract(server: Any) -> None:
    """The typed seed/close an Environment Server sends, checked by NeMo Gym's own conformance
    checker (``nemo_gym.testing.session_conformance``) through the app's routes: seed, repeated
    seed (the same episode, no second Reset), close, repeated close, close of a never-seeded
    session, and seeds after close refused. Then no sandbox is left."""
    from omegaconf import OmegaConf

    from nemo_gym.base_resources_server import ResourcesSeedSessionRequest
    from nemo_gym.config_types import BaseServerConfig
    from nemo_gym.episode_types import EpisodeId, TaskId
    from nemo_gym.server_utils import ServerClient
    from nemo_gym.testing.session_conformance import check_resources_session_contract
    from swe_env.nemo_gym.resources import SweEnvSimpleResourcesServer, SweEnvSimpleResourcesServerConfig

    config = SweEnvSimpleResourcesServerConfig(host="127.0.0.1", port=st.free_port(), entrypoint="app.py", name="swe_env_simple_resources", domain="coding", env_addr=server.address)
    client = ServerClient(head_server_config=BaseServerConfig(host="127.0.0.1", port=st.free_port()), global_config_dict=OmegaConf.create({}))
    resources = SweEnvSimpleResourcesServer(config=config, server_client=client)
    seed = ResourcesSeedSessionRequest(
        resources_session_id=f"contract-{uuid.uuid4().hex[:8]}",
        episode_id=EpisodeId(rollout_id=f"r{uuid.uuid4().hex[:8]}"),
        task_id=TaskId(taskset="swe_env", task_id=NOFIX),
        task_data={"task_id": NOFIX},
    )
    try:
        check_resources_session_contract(resources.setup_webserver(), seed, keeps_state=True)
        assert resources.sessions.sessions == {}
    finally:
        leftovers = server.leftovers()
    assert leftovers == []
