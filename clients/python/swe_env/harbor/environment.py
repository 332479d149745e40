"""Harbor's ``BaseEnvironment`` on a swe-env episode, graded by swe-env.

Plugged in by import path (Harbor's ``EnvironmentFactory`` imports it)::

    harbor run -p TASK_DIR -a oracle \\
        --environment-import-path swe_env.harbor.environment:SweEnvEnvironment \\
        --ek address=127.0.0.1:50051

``start`` is a Reset of the task named in ``environment/swe-env.json`` (written by
``swe-env export harbor``), with Harbor's session id as the episode id; ``exec``, the uploads and
the downloads are steps of the episode's ``bash``; ``stop`` is its Close.

The verification is swe-env's. Harbor's verifier uploads ``tests/`` to ``/tests``, runs
``/tests/test.sh`` in the environment and reads ``reward.txt``/``reward.json`` from the trial's
verifier directory on the host. Here that upload is the signal (only the verifier writes
``/tests``): nothing is uploaded, the episode is graded with ``submit_solution`` (the task's hidden
tests in the server's own grading container, never in the agent's), and the reward is written into
the host's verifier directory. The verifier's later commands are answered from that grading
without running anything in the agent's container, and the verifier directory counts as host-backed
(``is_path_mounted``), so whatever the agent wrote to ``/logs/verifier`` in its container is never
downloaded: the agent cannot forge the reward file.
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path, PurePosixPath
from typing import Any, Dict, Optional

from harbor.environments.base import BaseEnvironment, ExecResult
from harbor.models.trial.paths import EnvironmentPaths

from ..client.async_client import AsyncSweEnvClient
from .commands import TIMEOUT_EXIT_CODE, exec_command
from .episode import Episode, Grade
from .reward import write_reward
from .transfer import download_tar, extract, tar_of_dir, tar_of_file, upload_tar

#: The file of an exported task's ``environment/`` that names its swe-env task.
TASK_FILE = "swe-env.json"
#: Directories Harbor's agents and verifier expect in the sandbox (its docker env mounts them).
_LOG_DIRS = ("/logs/agent", "/logs/verifier", "/logs/artifacts")


def task_id_of(environment_dir: Path, fallback: str) -> str:
    path = environment_dir / TASK_FILE
    if path.is_file():
        return str(json.loads(path.read_text())["task_id"])
    return fallback


class SweEnvEnvironment(BaseEnvironment):
    """Options (``--ek key=value``): ``address`` (default ``$SWE_ENV_ADDR`` or
    ``127.0.0.1:50051``; a comma-separated list is a fleet), ``task_id`` (overrides
    ``environment/swe-env.json``), ``episode_options`` (a JSON object merged over the wide
    defaults of :data:`swe_env.harbor.episode.HARBOR_EPISODE_OPTIONS`). ``SWE_ENV_AUTH_TOKEN`` and
    ``SWE_ENV_CA_FILE`` are read as by every client."""

    def __init__(
        self,
        environment_dir: Path,
        environment_name: str,
        session_id: str,
        trial_paths: Any,
        task_env_config: Any,
        *args: Any,
        address: Optional[str] = None,
        task_id: Optional[str] = None,
        episode_options: Any = None,
        **kwargs: Any,
    ) -> None:
        addresses = (address or os.environ.get("SWE_ENV_ADDR") or "127.0.0.1:50051").split(",")
        self._client = AsyncSweEnvClient([a.strip() for a in addresses if a.strip()])
        options = json.loads(episode_options) if isinstance(episode_options, str) else dict(episode_options or {})
        self._episode = Episode(self._client, task_id or task_id_of(Path(environment_dir), environment_name), session_id, options)
        self._grade: Optional[Grade] = None
        super().__init__(environment_dir, environment_name, session_id, trial_paths, task_env_config, *args, **kwargs)

    @staticmethod
    def type() -> str:
        return "swe-env"

    def _validate_definition(self) -> None:
        # The sandbox is the task's image as swe-env runs it: nothing in environment/ is built.
        pass

    @property
    def episode(self) -> Episode:
        return self._episode

    # --- lifecycle ------------------------------------------------------------------------------

    async def start(self, force_build: bool) -> None:
        await self._episode.start()
        await self._checked(f"mkdir -p {' '.join(_LOG_DIRS)}", "creating Harbor's log directories")

    async def stop(self, delete: bool) -> None:
        # The episode is closed whatever `delete` says: swe-env removes its container on Close
        # (a kept container would outlive the trial with nobody to remove it).
        try:
            summary = await self._episode.close()
            if summary:
                self.logger.debug(f"swe-env episode {self.session_id} closed: {summary.get('end_reason')}")
        finally:
            await self._client.aclose()

    # --- commands -------------------------------------------------------------------------------

    async def exec(
        self,
        command: str,
        cwd: Optional[str] = None,
        env: Optional[Dict[str, str]] = None,
        timeout_sec: Optional[int] = None,
        user: Any = None,
    ) -> ExecResult:
        if self._grade is not None:
            return self._graded_answer()
        wrapped = exec_command(
            command,
            cwd=cwd or self.task_env_config.workdir,
            env=self._merge_env(env),
            timeout_sec=timeout_sec,
            user=self._resolve_user(user),
        )
        result = await self._episode.bash(wrapped)
        code = TIMEOUT_EXIT_CODE if result.status == "COMMAND_TIMEOUT" else result.exit_code
        # The episode's shell merges stdout and stderr, in order: all of it is stdout here.
        return ExecResult(stdout=result.observation, stderr="", return_code=code)

    async def _checked(self, command: str, what: str) -> None:
        result = await self.exec(command, user="root")
        if result.return_code != 0:
            raise RuntimeError(f"{what} failed (exit {result.return_code}): {result.stdout}")

    # --- files ----------------------------------------------------------------------------------

    async def upload_file(self, source_path: Path | str, target_path: str) -> None:
        target = PurePosixPath(target_path)
        await upload_tar(self._episode, tar_of_file(Path(source_path), target.name), str(target.parent))

    async def upload_dir(self, source_dir: Path | str, target_dir: str) -> None:
        if PurePosixPath(target_dir) == EnvironmentPaths.tests_dir:
            await self._verify()
            return
        await upload_tar(self._episode, tar_of_dir(Path(source_dir)), target_dir)

    async def download_file(self, source_path: str, target_path: Path | str) -> None:
        target = Path(target_path)
        data = await download_tar(self._episode, source_path, directory=False)
        target.parent.mkdir(parents=True, exist_ok=True)
        # Unpacked aside first: the member has the source's name, which may be another file's beside the target.
        with tempfile.TemporaryDirectory(dir=target.parent) as aside:
            extract(data, aside)
            (Path(aside) / PurePosixPath(source_path).name).replace(target)

    async def download_dir(self, source_dir: str, target_dir: Path | str) -> None:
        extract(await download_tar(self._episode, source_dir, directory=True), target_dir)

    def is_path_mounted(self, environment_path: Any, host_path: Path) -> bool:
        # The verifier directory on the host is written by this class alone (the grading): Harbor
        # must never copy the container's /logs/verifier over it.
        return PurePosixPath(str(environment_path)) == EnvironmentPaths.verifier_dir and Path(host_path).resolve() == Path(
            self.trial_paths.verifier_dir
        ).resolve()

    # --- verification ---------------------------------------------------------------------------

    async def _verify(self) -> None:
        """swe-env's grading of the episode, written as the trial's reward on the host."""
        if self._grade is None:
            self._grade = await self._episode.grade()
            write_reward(Path(self.trial_paths.verifier_dir), self._grade)

    def _graded_answer(self) -> ExecResult:
        assert self._grade is not None
        return ExecResult(stdout=f"graded by swe-env: reward {self._grade.reward}\n", stderr="", return_code=0)
