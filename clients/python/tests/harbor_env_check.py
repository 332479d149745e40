"""Drives SweEnvEnvironment the way Harbor's callers build one (EnvironmentFactory from a trial
EnvironmentConfig with an import path, as TRL's HarborEnv and Harbor's Trial do), run by
tests/test_harbor.py in the Harbor venv: prints what each call gave as one JSON object.

usage: harbor_env_check.py ADDRESS TASK_DIR WORK_DIR
"""
from __future__ import annotations

import asyncio
import json
import os
import sys
import uuid
from pathlib import Path

from harbor.environments.factory import EnvironmentFactory
from harbor.models.task.task import Task
from harbor.models.trial.config import EnvironmentConfig
from harbor.models.trial.paths import TrialPaths


async def main(address: str, task_dir: Path, work: Path) -> dict:
    task = Task(task_dir=task_dir)
    paths = TrialPaths(trial_dir=work / "trial")
    paths.mkdir()
    env = EnvironmentFactory.create_environment_from_config(
        config=EnvironmentConfig(import_path="swe_env.harbor.environment:SweEnvEnvironment", kwargs={"address": address}),
        environment_dir=task.paths.environment_dir,
        environment_name=task.short_name,
        session_id=f"check-{uuid.uuid4().hex[:8]}",
        trial_paths=paths,
        task_env_config=task.config.environment,
    )
    out: dict = {"type": env.type()}
    await env.start(force_build=False)
    try:
        r = await env.exec("pwd; cd /tmp; export LEAK=1; echo out; echo err >&2; exit 3")
        out["first"] = [r.stdout, r.return_code]
        r = await env.exec('pwd; echo "leak=${LEAK:-none} given=$GIVEN"', env={"GIVEN": "a b"})
        out["second"] = [r.stdout, r.return_code]
        r = await env.exec("pwd", cwd="/tmp")
        out["cwd"] = r.stdout
        r = await env.exec("sleep 30", timeout_sec=1)
        out["timeout_code"] = r.return_code
        # A call Harbor cancels (its agent timeout is an asyncio.wait_for): the command must not run on
        # and hold the episode's shell, nor its answer be taken for the next call's.
        try:
            await asyncio.wait_for(env.exec("sleep 600; echo late"), 2)
            out["cancelled"] = False
        except (TimeoutError, asyncio.TimeoutError):
            out["cancelled"] = True
        r = await env.exec("echo next")
        out["after_cancel"] = [r.stdout, r.return_code]
        source = work / "up"
        (source / "sub").mkdir(parents=True)
        blob = os.urandom(3 * 1024 * 1024)  # more than one chunk each way
        (source / "sub" / "blob.bin").write_bytes(blob)
        (source / "a.txt").write_text("hello\n")
        await env.upload_dir(source, "/tmp/harbor-up")
        await env.upload_file(source / "a.txt", "/tmp/harbor-file/renamed.txt")
        r = await env.exec("cat /tmp/harbor-file/renamed.txt; sha256sum /tmp/harbor-up/sub/blob.bin | cut -c1-64")
        out["uploaded"] = r.stdout
        await env.download_dir("/tmp/harbor-up", work / "down")
        out["dir_round_trip"] = (work / "down" / "sub" / "blob.bin").read_bytes() == blob and (work / "down" / "a.txt").read_text() == "hello\n"
        await env.download_file("/tmp/harbor-file/renamed.txt", work / "single" / "copy.txt")
        out["file_round_trip"] = (work / "single" / "copy.txt").read_text()
        # A tar whose member points outside the target directory is refused, not followed.
        await env.exec("mkdir -p /tmp/evil && ln -sf /etc/passwd /tmp/evil/link && cd /tmp/evil && ln -sf ../../../../../../tmp/x escape")
        try:
            await env.download_dir("/tmp/evil", work / "evil")
            out["evil"] = sorted(p.name for p in (work / "evil").iterdir())
        except Exception as error:  # the data filter's refusal
            out["evil"] = type(error).__name__
        out["verifier_mounted"] = env.is_path_mounted(Path("/logs/verifier"), paths.verifier_dir)
        out["agent_mounted"] = env.is_path_mounted(Path("/logs/agent"), paths.agent_dir)
    finally:
        await env.stop(delete=True)
    return out


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])))))
