"""mini-swe-agent against swe-env episodes.

``SweEnvEnvironment`` is a mini-swe-agent environment (its ``Environment`` protocol): each command
is a Step of one swe-env episode (one persistent shell in the episode's sandbox, instead of a
``docker exec`` per command), and the submission is graded by swe-env. mini-swe-agent's own agent
classes run on it unchanged::

    from minisweagent.agents.default import DefaultAgent
    env = SweEnvEnvironment(server="127.0.0.1:50051", task_id="django__django-11099")
    agent = DefaultAgent(record_turns(model, env), env, **agent_config)
    info = agent.run(task_text)        # info["swe_env"]: reward, resolved, report, episode_id

(``record_turns`` is optional: it hands each model message to the environment, which sends it with
the step it caused, so the server's trajectory of the episode holds the model's own words.)

Its batch runner too, with swe-env placing each instance in an episode of that instance's task::

    python -m swe_env.mini_swe_agent swebench --subset DATA --split test -o OUT \\
        -c swebench.yaml -c environment.server=HOST:PORT -m MODEL

(every argument after ``swebench`` is mini-swe-agent's own ``swebench`` command). ``preds.json``
then holds the change swe-env captured from each sandbox, each trajectory's exit message the
reward, and the server's trajectories the model's messages.

The submission is mini-swe-agent's: a command whose output starts with
``COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`` (exit code 0). swe-env then grades the repository as it
is in the sandbox (not the text printed after the marker).
"""
from __future__ import annotations

import platform
import sys
import threading
from typing import Any, Dict, List, Optional

from pydantic import BaseModel

from .core.results import StepResult
from .client.sync_client import SweEnvClient

SUBMIT_MARKER = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"


class SweEnvEnvironmentConfig(BaseModel):
    """Keyword arguments of SweEnvEnvironment (the ``environment`` section of a mini-swe-agent config)."""

    server: str = "127.0.0.1:50051"
    """The swe-env server, or several separated by commas (a fleet)."""
    task_id: str = ""
    """The swe-env task (SWE-bench instance id); the batch runner sets it per instance."""
    timeout: int = 60
    """Limit on one command, in seconds (the episode's command timeout)."""
    max_steps: int = 0
    """Steps per episode (0: the server's default)."""
    group_id: str = ""
    episode_options: Dict[str, Any] = {}
    """More EpisodeOptions (episode_timeout_s, output_limit_bytes, truncation...)."""
    cwd: str = ""
    """Accepted for configs written for mini-swe-agent's docker environment; the episode's shell
    starts in the task's working directory and keeps its own cwd between commands."""
    env: Dict[str, str] = {}
    """Exported in the episode's shell before the first command."""


class SweEnvEnvironment:
    """One swe-env episode as a mini-swe-agent environment."""

    def __init__(self, *, config_class: type = SweEnvEnvironmentConfig, client: Optional[SweEnvClient] = None, **kwargs: Any) -> None:
        kwargs.pop("environment_class", None)
        kwargs.pop("image", None)  # mini-swe-agent's docker settings: swe-env knows each task's image
        for ignored in ("interpreter", "forward_env", "executable", "run_args", "container_timeout", "pull_timeout"):
            kwargs.pop(ignored, None)
        self.config = config_class(**kwargs)
        if not self.config.task_id:
            raise ValueError("SweEnvEnvironment needs task_id (the batch runner sets it per instance)")
        self._own_client = client is None
        self.client = client or SweEnvClient([a.strip() for a in self.config.server.split(",") if a.strip()])
        options: Dict[str, Any] = {"command_timeout_s": self.config.timeout, **self.config.episode_options}
        if self.config.max_steps:
            options["max_steps"] = self.config.max_steps
        self.episode = self.client.reset(self.config.task_id, group_id=self.config.group_id, options=options)
        self.step_index = 0
        self.outcome: Dict[str, Any] = {}
        self._turn: Optional[Dict[str, str]] = None
        self._closed = False
        if self.config.env:
            exports = " && ".join(f"export {k}={_quote(v)}" for k, v in self.config.env.items())
            self._step("bash", {"command": exports})

    # --- mini-swe-agent's Environment protocol -------------------------------------------------

    def execute(self, action: dict, cwd: str = "", *, timeout: Optional[int] = None) -> Dict[str, Any]:
        """Runs the command as the episode's next step; a submission is graded (mini-swe-agent's
        ``Submitted`` is raised with swe-env's verdict)."""
        command = str(action.get("command", ""))
        if cwd:
            command = f"cd {_quote(cwd)} && {command}"
        result = self._step("bash", {"command": command})
        output: Dict[str, Any] = {"output": result.observation, "returncode": result.exit_code, "exception_info": ""}
        if result.status == "COMMAND_TIMEOUT":
            output["exception_info"] = f"The command timed out after {self.config.timeout} s and was killed."
        if result.status == "INFRA_ERROR":
            raise SweEnvInfraError(result.observation)
        if result.terminated or result.truncated:
            self._finish(result, "LimitsExceeded", "The episode reached its limit and was graded.")
        lines = output["output"].lstrip().splitlines()
        if lines and lines[0].strip() == SUBMIT_MARKER and output["returncode"] == 0:
            self._submit()
        return output

    def get_template_vars(self, **kwargs: Any) -> Dict[str, Any]:
        info = self.episode.info
        return {
            **self.config.model_dump(),
            **platform.uname()._asdict(),
            "cwd": info.get("workdir", ""),
            "repo": info.get("repo", ""),
            "problem_statement": info.get("problem_statement", ""),
            "episode_id": self.episode.episode_id,
            **kwargs,
        }

    def serialize(self) -> Dict[str, Any]:
        return {
            "info": {
                "config": {
                    "environment": self.config.model_dump(mode="json"),
                    "environment_type": f"{self.__class__.__module__}.{self.__class__.__name__}",
                },
                "swe_env": {"episode_id": self.episode.episode_id, **self.outcome},
            }
        }

    def cleanup(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            summary = self.client.close(self.episode.episode_id)
            self.outcome.setdefault("end_reason", summary.get("end_reason", ""))
        finally:
            if self._own_client:
                self.client.shutdown()

    def __del__(self) -> None:
        try:
            self.cleanup()
        except Exception:  # interpreter shutdown: the server's idle expiry ends the episode
            pass

    # --- internals -----------------------------------------------------------------------------

    def model_said(self, message: Dict[str, Any], model_name: str = "") -> None:
        """The model's message whose actions come next: sent with the first step it causes."""
        self._turn = {
            "content": _text(message.get("content")),
            "reasoning": _text(message.get("reasoning_content") or message.get("reasoning")),
            "model": model_name,
        }

    def _step(self, name: str, arguments: Dict[str, Any]) -> StepResult:
        turn, self._turn = self._turn, None
        result = self.client.step(self.episode.episode_id, self.step_index, name, arguments, assistant=turn)
        self.step_index += 1
        return result

    def _submit(self) -> None:
        result = self._step("submit_solution", {})
        if result.status == "INFRA_ERROR":
            raise SweEnvInfraError(result.observation)
        self._finish(result, "Submitted", result.observation)

    def _finish(self, result: StepResult, exit_status: str, content: str) -> None:
        from minisweagent.exceptions import LimitsExceeded, Submitted

        report = result.report or {}
        patch = str(result.info.get("model_patch", ""))
        self.outcome = {
            "reward": result.reward,
            "resolved": bool(report.get("resolved", False)),
            "end_reason": "submitted" if exit_status == "Submitted" else "truncated",
            "report": report,
        }
        extra = {"exit_status": exit_status, "submission": patch, "swe_env": {"episode_id": self.episode.episode_id, **self.outcome}}
        message = {"role": "exit", "content": content, "extra": extra}
        raise (Submitted if exit_status == "Submitted" else LimitsExceeded)(message)


class SweEnvInfraError(RuntimeError):
    """swe-env's environment failed under the episode (masked by trainers, never a 0)."""


def _quote(value: str) -> str:
    return "'" + value.replace("'", "'\"'\"'") + "'"


def _install_into_batch_runner() -> None:
    """Makes mini-swe-agent's swebench batch runner start each instance as a swe-env episode."""
    from minisweagent.run.benchmarks import swebench

    # The runner makes an instance's model, then its environment, in the same worker thread: the
    # model made last in a thread is the one the next environment of that thread is paired with.
    made = threading.local()
    runners_get_model = swebench.get_model

    def get_model(*args: Any, **kwargs: Any) -> Any:
        made.model = record_turns(runners_get_model(*args, **kwargs))
        return made.model

    def get_sb_environment(config: dict, instance: dict) -> SweEnvEnvironment:
        env_config = {k: v for k, v in dict(config.get("environment", {})).items() if k != "environment_class"}
        env_config["task_id"] = instance["instance_id"]
        env = SweEnvEnvironment(**env_config)
        model, made.model = getattr(made, "model", None), None
        if isinstance(model, TurnRecordingModel):
            model.env = env
        return env

    swebench.get_model = get_model  # type: ignore[assignment]
    swebench.get_sb_environment = get_sb_environment  # type: ignore[assignment]


class TurnRecordingModel:
    """A mini-swe-agent model that hands every message it returns to a SweEnvEnvironment (which
    sends it with the step it causes); everything else is the wrapped model's."""

    def __init__(self, model: Any, env: Optional[SweEnvEnvironment] = None) -> None:
        self.wrapped = model
        self.env = env

    def query(self, messages: List[Dict[str, Any]], **kwargs: Any) -> Dict[str, Any]:
        message = self.wrapped.query(messages, **kwargs)
        if self.env is not None:
            self.env.model_said(message, str(getattr(getattr(self.wrapped, "config", None), "model_name", "") or ""))
        return message

    def __getattr__(self, name: str) -> Any:
        if name == "wrapped":  # not set yet (a copy being made): no recursion through the line below
            raise AttributeError(name)
        return getattr(self.wrapped, name)


def record_turns(model: Any, env: Optional[SweEnvEnvironment] = None) -> TurnRecordingModel:
    """``model`` wrapped so that ``env`` (set now or later as ``.env``) records its messages."""
    return model if isinstance(model, TurnRecordingModel) else TurnRecordingModel(model, env)


def _text(value: Any) -> str:
    """A message's content as text (a list of parts: their text parts joined)."""
    if value is None:
        return ""
    if isinstance(value, list):
        return "".join(str(part.get("text", "")) if isinstance(part, dict) else str(part) for part in value)
    return str(value)


def main(argv: Optional[List[str]] = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] != "swebench":
        sys.exit("usage: python -m swe_env.mini_swe_agent swebench [mini-swe-agent's swebench options]")
    _install_into_batch_runner()
    from minisweagent.run.benchmarks.swebench import app

    app(args[1:], standalone_mode=True)


if __name__ == "__main__":
    main()
