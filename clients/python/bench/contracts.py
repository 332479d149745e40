"""Rollouts per minute through each trainer contract vs the native gRPC client, at the same
concurrency, in one run against one real swe-env server (tests/conftest.py's ``Server`` on the
demo tasks; ``npm run build`` first).

    cd clients/python && flock /tmp/swe-env-docker.lock "$(bash ../../scripts/setup-python.sh)/bin/python" \\
        bench/contracts.py --concurrency 4 --rollouts 8 --harbor-rollouts 4

A rollout: open an episode on ``swe-env-demo__textkit-2``, apply the gold patch with ``bash``,
``submit_solution``, read the reward (1 expected), close. Contracts, each through its own client:

- native: ``AsyncSweEnvClient`` (gRPC), the baseline;
- openenv: ``python -m swe_env.openenv`` driven by OpenEnv's ``MCPToolClient`` (run from the
  OpenEnv venv, ``<test venv>/openenv/bin/python``, as tests_openenv/ does);
- nemo_gym: the ``swe_env.nemo_gym`` simple resources server over HTTP, the routes NeMo Gym's simple
  agent calls (/seed_session, /bash, /submit_solution, /verify), one cookie session per rollout;
- harbor@1: ``harbor run`` of Harbor's oracle agent on the exported task with swe-env as its
  environment (Harbor's own venv), one trial at a time, against native at concurrency 1.

Prints per contract: n, rewards, p50/p95 seconds of one rollout, rollouts/minute (n over the wall
time of the contract's batch) and the ratio to native measured in the same run. Timings are printed,
never asserted. Every process and container it starts is removed at the end, on Ctrl-C too.

One run of the command above (this 2-core machine, shared; 2m42s in all):

    | contract   | conc |   n | reward=1 | errors | p50 s | p95 s | per min | vs native |
    | native     |    4 |   8 |      8/8 |      0 |  10.9 |  13.9 |    20.0 |      1.00 |
    | openenv    |    4 |   8 |      8/8 |      0 |  13.2 |  14.0 |    17.6 |      0.88 |
    | nemo_gym   |    4 |   8 |      8/8 |      0 |  13.7 |  17.2 |    15.7 |      0.79 |
    | native@1   |    1 |   4 |      4/4 |      0 |   5.6 |   5.9 |    11.6 |      1.00 |
    | harbor@1   |    1 |   4 |      4/4 |      0 |   5.6 |   6.3 |    10.7 |      0.93 |
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import time
import tempfile
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any, Awaitable, Callable, Dict, List, Optional, Tuple

HERE = Path(__file__).resolve().parent
CLIENT = HERE.parent
sys.path[:0] = [str(CLIENT), str(CLIENT / "tests")]

TASK = "swe-env-demo__textkit-2"
Rollout = Callable[[], Awaitable[float]]  # one rollout; returns its reward


def gold_command(patch: str) -> str:
    return f"cat > /tmp/fix.patch <<'SWE_ENV_EOF'\n{patch}SWE_ENV_EOF\ngit apply /tmp/fix.patch"


def percentile(values: List[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


async def timed_batch(rollout: Rollout, n: int, concurrency: int) -> Dict[str, Any]:
    """``n`` rollouts, ``concurrency`` at a time: each one's seconds and reward, and the batch's wall time."""
    gate = asyncio.Semaphore(concurrency)
    durations: List[float] = []
    rewards: List[float] = []
    errors: List[str] = []

    async def one() -> None:
        async with gate:
            t0 = time.perf_counter()
            try:
                rewards.append(await rollout())
                durations.append(time.perf_counter() - t0)
            except Exception as error:  # counted and shown, never timed as a rollout
                errors.append(f"{type(error).__name__}: {error}"[:300])

    start = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(n)))
    return {"durations": durations, "rewards": rewards, "errors": errors, "wall": time.perf_counter() - start}


# --- native -------------------------------------------------------------------------------------


async def native_batch(address: str, patch: str, n: int, concurrency: int) -> Dict[str, Any]:
    from swe_env import AsyncSweEnvClient

    client = AsyncSweEnvClient(address)

    async def rollout() -> float:
        episode = await client.reset(TASK)
        try:
            await client.step(episode.episode_id, 0, "bash", {"command": gold_command(patch)})
            graded = await client.step(episode.episode_id, 1, "submit_solution", {})
            return graded.reward
        finally:
            await client.close(episode.episode_id)

    try:
        return await timed_batch(rollout, n, concurrency)
    finally:
        await client.aclose()


# --- OpenEnv (runs in the OpenEnv venv: ``--worker openenv``) -------------------------------------


async def openenv_batch(url: str, patch: str, n: int, concurrency: int) -> Dict[str, Any]:
    from openenv.core.env_server.mcp_types import CallToolAction
    from openenv.core.mcp_client import MCPToolClient

    async def rollout() -> float:
        # A submit grades in a fresh container: far longer than OpenEnv's default 60 s under load.
        async with MCPToolClient(base_url=url, message_timeout_s=900) as env:
            await env.reset(task_id=TASK)
            await env.step(CallToolAction(tool_name="bash", arguments={"command": gold_command(patch)}))
            graded = await env.step(CallToolAction(tool_name="submit_solution", arguments={}))
            return float(graded.reward or 0.0)

    return await timed_batch(rollout, n, concurrency)


# --- NeMo Gym simple resources server ----------------------------------------------------------


async def nemo_gym_batch(url: str, n: int, concurrency: int, patch: str) -> Dict[str, Any]:
    import httpx

    async def rollout() -> float:
        # A client per rollout: its own cookie jar, the resources session as the simple agent holds it.
        async with httpx.AsyncClient(base_url=url, timeout=900) as http:
            params = {"input": "x"}
            seeded = await http.post("/seed_session", json={"task_id": TASK, "responses_create_params": params})
            seeded.raise_for_status()
            (await http.post("/bash", json={"command": gold_command(patch)})).raise_for_status()
            (await http.post("/submit_solution", json={})).raise_for_status()
            verified = await http.post("/verify", json={"responses_create_params": params, "response": _empty_response()})
            verified.raise_for_status()
            body = verified.json()
            if body.get("mask_sample"):
                raise RuntimeError(f"masked: {body.get('failure_kind')}: {body.get('failure_reason')}")
            return float(body["reward"])

    return await timed_batch(rollout, n, concurrency)


def _empty_response() -> Dict[str, Any]:
    """The Responses-API object /verify requires (the policy's output; nothing in it is graded)."""
    return {"id": f"resp_{uuid.uuid4().hex[:8]}", "created_at": 0.0, "model": "bench", "object": "response", "output": [],
            "parallel_tool_calls": False, "tool_choice": "auto", "tools": []}


def start_nemo_gym(address: str) -> Tuple[Any, str]:
    """The resources server's FastAPI app (as its app.py builds it) under uvicorn in a thread."""
    from omegaconf import OmegaConf

    import nemo_gym_stack as st
    from nemo_gym.config_types import BaseServerConfig
    from nemo_gym.server_utils import ServerClient
    from swe_env.nemo_gym.resources import SweEnvSimpleResourcesServer, SweEnvSimpleResourcesServerConfig

    import threading

    import uvicorn

    port = st.free_port()
    config = SweEnvSimpleResourcesServerConfig(host="127.0.0.1", port=port, entrypoint="app.py", name="swe_env_simple_resources", domain="coding", env_addr=address)
    client = ServerClient(head_server_config=BaseServerConfig(host="127.0.0.1", port=st.free_port()), global_config_dict=OmegaConf.create({}))
    resources = SweEnvSimpleResourcesServer(config=config, server_client=client)
    server = uvicorn.Server(uvicorn.Config(resources.setup_webserver(), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started and thread.is_alive():
        time.sleep(0.05)
    if not server.started:
        raise RuntimeError("the NeMo Gym resources server did not start")
    return (server, thread), f"http://127.0.0.1:{port}"


def stop_uvicorn(handle: Tuple[Any, Any]) -> None:
    server, thread = handle
    server.should_exit = True  # its lifespan closes every session left (close_all)
    thread.join(timeout=120)


# --- OpenEnv processes ---------------------------------------------------------------------------


def openenv_python() -> Path:
    return Path(sys.prefix) / "openenv" / "bin" / "python"


def start_openenv(address: str, concurrency: int, scratch: Path) -> Tuple[subprocess.Popen, str]:
    log = scratch / "openenv.log"  # its stderr, shown if it does not start
    with log.open("wb") as err:
        proc = subprocess.Popen(
            [str(openenv_python()), "-m", "swe_env.openenv", "--swe-env", address, "--port", "0", "--max-sessions", str(concurrency)],
            stdout=subprocess.PIPE, stderr=err, text=True, env=_env(),
        )
    line = proc.stdout.readline() if proc.stdout else ""
    if "openenv listening on" not in line:
        stop_process(proc)
        raise RuntimeError(f"the OpenEnv server did not start: {line!r}: {log.read_text()[-2000:]}")
    return proc, line.split("openenv listening on", 1)[1].split()[0]


def run_openenv_worker(url: str, n: int, concurrency: int, procs: List[subprocess.Popen]) -> Dict[str, Any]:
    """This script's ``--worker openenv`` in the OpenEnv venv; its last stdout line is the batch's JSON."""
    proc = subprocess.Popen(
        [str(openenv_python()), str(Path(__file__).resolve()), "--worker", "openenv", "--url", url, "--rollouts", str(n), "--concurrency", str(concurrency)],
        stdout=subprocess.PIPE, text=True, env=_env(),
    )
    procs.append(proc)
    out, _ = proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(f"the OpenEnv worker exited {proc.returncode}")
    return dict(json.loads(out.strip().splitlines()[-1]))


def _env() -> Dict[str, str]:
    # This checkout's swe_env, never another's (the venvs hold none of their own).
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(CLIENT), os.environ.get("PYTHONPATH", "")]))


def stop_process(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


# --- Harbor (its own venv: scripts/setup-harbor-python.sh), at concurrency 1 ---------------------


def harbor_batch(address: str, n: int, scratch: Path, procs: List[subprocess.Popen]) -> Dict[str, Any]:
    """``harbor run`` of its oracle agent (the exported task's gold patch) ``n`` times, one trial at a
    time. Times are the trials' own (result.json), so Harbor's CLI start-up is not counted."""
    import conftest

    setup = subprocess.run(["bash", str(conftest.ROOT / "scripts" / "setup-harbor-python.sh")], capture_output=True, text=True, check=True)
    harbor = Path(setup.stdout.strip().splitlines()[-1]) / "bin" / "harbor"
    tasks = scratch / "tasks"
    subprocess.run(["node", str(conftest.CLI), "export", "harbor", "--tasks", str(conftest.DEMO_TASKS), "--out", str(tasks), "--instance", TASK], check=True, capture_output=True)
    config = {
        "job_name": "bench", "jobs_dir": str(scratch / "jobs"), "n_concurrent_trials": 1, "n_attempts": n, "quiet": True,
        "tasks": [{"path": str(tasks / TASK)}], "agents": [{"name": "oracle"}],
        "environment": {"import_path": "swe_env.harbor.environment:SweEnvEnvironment", "kwargs": {"address": address}},
    }
    (scratch / "job.json").write_text(json.dumps(config))
    # LiteLLM (a Harbor dependency) would fetch its model cost map from the network at import.
    env = dict(_env(), LITELLM_LOCAL_MODEL_COST_MAP="True")
    proc = subprocess.Popen([str(harbor), "run", "-c", str(scratch / "job.json"), "-y"], cwd=scratch, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    procs.append(proc)
    if proc.wait() != 0:
        raise RuntimeError(f"harbor run exited {proc.returncode}")
    batch: Dict[str, Any] = {"durations": [], "rewards": [], "errors": []}
    spans: List[Tuple[datetime, datetime]] = []
    for path in (scratch / "jobs" / "bench").glob("*/result.json"):
        result = json.loads(path.read_text())
        if result.get("exception_info") or not result.get("verifier_result"):
            batch["errors"].append(str(result.get("exception_info"))[:300])
            continue
        span = (datetime.fromisoformat(result["started_at"]), datetime.fromisoformat(result["finished_at"]))
        spans.append(span)
        batch["durations"].append((span[1] - span[0]).total_seconds())
        batch["rewards"].append(float(result["verifier_result"]["rewards"]["reward"]))
    batch["wall"] = (max(s[1] for s in spans) - min(s[0] for s in spans)).total_seconds() if spans else 0.0
    return batch


# --- the run -------------------------------------------------------------------------------------


def summary(name: str, batch: Dict[str, Any], baseline: Optional[Dict[str, Any]]) -> str:
    """One table row; the ratio is rollouts/minute over the baseline's (native at the same concurrency)."""
    durations, n = batch["durations"], len(batch["durations"])
    rate = n / batch["wall"] * 60 if batch["wall"] else 0.0
    batch["rate"] = rate
    ratio = "1.00" if baseline is None else f"{rate / baseline['rate']:.2f}" if baseline.get("rate") else "n/a"
    p50 = f"{percentile(durations, 0.5):.1f}" if durations else "-"
    p95 = f"{percentile(durations, 0.95):.1f}" if durations else "-"
    rewards = f"{sum(1 for r in batch['rewards'] if r == 1.0)}/{n}"
    return f"| {name:10s} | {batch['concurrency']:4d} | {n:3d} | {rewards:>8s} | {len(batch['errors']):6d} | {p50:>5s} | {p95:>5s} | {rate:7.1f} | {ratio:>9s} |"


def main(argv: List[str]) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--rollouts", type=int, default=8, help="rollouts per contract")
    parser.add_argument("--harbor-rollouts", type=int, default=4, help="Harbor trials, one at a time, against native at concurrency 1 (0: skip)")
    parser.add_argument("--worker", choices=["openenv"], help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    opts = parser.parse_args(argv)
    tasks = [json.loads(line) for line in (CLIENT.parents[1] / "tasks" / "demo" / "tasks.jsonl").read_text().splitlines() if line.strip()]
    patch = next(t["patch"] for t in tasks if t["instance_id"] == TASK)
    if opts.worker == "openenv":
        print(json.dumps(asyncio.run(openenv_batch(opts.url, patch, opts.rollouts, opts.concurrency))))
        return
    # SIGTERM cleans up as Ctrl-C does.
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    import conftest  # the test server, from tests/

    server = conftest.Server()
    procs: List[subprocess.Popen] = []
    gym: Any = None
    scratch = tempfile.TemporaryDirectory(prefix="swe-env-bench-")
    results: Dict[str, Dict[str, Any]] = {}
    c, n = opts.concurrency, opts.rollouts
    try:
        # One warm-up rollout: the task's image and first container are not any contract's cost.
        asyncio.run(native_batch(server.address, patch, 1, 1))
        results["native"] = dict(asyncio.run(native_batch(server.address, patch, n, c)), concurrency=c)
        openenv_proc, url = start_openenv(server.address, c, Path(scratch.name))
        procs.append(openenv_proc)
        results["openenv"] = dict(run_openenv_worker(url, n, c, procs), concurrency=c)
        gym, gym_url = start_nemo_gym(server.address)
        results["nemo_gym"] = dict(asyncio.run(nemo_gym_batch(gym_url, n, c, patch)), concurrency=c)
        if opts.harbor_rollouts:
            results["native@1"] = dict(asyncio.run(native_batch(server.address, patch, opts.harbor_rollouts, 1)), concurrency=1)
            results["harbor@1"] = dict(harbor_batch(server.address, opts.harbor_rollouts, Path(scratch.name), procs), concurrency=1)
    finally:
        for proc in reversed(procs):
            stop_process(proc)
        if gym is not None:
            stop_uvicorn(gym)
        scratch.cleanup()
        server.stop()  # also removes (and reports) any container left behind
    print(f"\nrollouts of {TASK} (gold patch, reward 1 expected), every contract against the same server in one run")
    print("| contract   | conc |   n | reward=1 | errors | p50 s | p95 s | per min | vs native |")
    print("|------------|------|-----|----------|--------|-------|-------|---------|-----------|")
    for name, batch in results.items():
        baseline = None if name.startswith("native") else results["native@1" if name.endswith("@1") else "native"]
        print(summary(name, batch, baseline))
    for name, batch in results.items():
        for error in batch["errors"][:3]:
            print(f"{name} error: {error}")

if __name__ == "__main__":
    main(sys.argv[1:])
