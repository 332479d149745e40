"""What the client's calls return, and the conversions from the protocol's messages."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from google.protobuf.json_format import MessageToDict

from .._proto.swe_env.v1 import swe_env_pb2 as pb


@dataclass(frozen=True)
class ResetResult:
    episode_id: str
    observation: str
    tools: List[Dict[str, Any]]
    info: Dict[str, Any]
    options: Dict[str, Any]
    address: str


@dataclass(frozen=True)
class StepResult:
    observation: str
    reward: float
    terminated: bool
    truncated: bool
    status: str
    step_index: int
    exit_code: int
    info: Dict[str, Any] = field(default_factory=dict)
    report: Optional[Dict[str, Any]] = None
    call_id: str = ""

    @property
    def infra_error(self) -> bool:
        """The environment failed: mask this sample rather than learn from its reward."""
        return self.status == "INFRA_ERROR"


def status_name(value: int) -> str:
    """A StepStatus value's name without its prefix (SUCCESS, INFRA_ERROR...)."""
    return pb.StepStatus.Name(value).replace("STEP_STATUS_", "")


def to_dict(message: Any) -> Dict[str, Any]:
    """A message as a dict with the protocol's field names and every field, set or not."""
    # protobuf 4.x names the option including_default_value_fields; 5.26+ renamed it.
    try:
        return MessageToDict(message, preserving_proto_field_name=True, including_default_value_fields=True)
    except TypeError:
        return MessageToDict(message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)


def step_result(response: Any) -> StepResult:
    return StepResult(
        observation=response.observation,
        reward=response.reward,
        terminated=response.terminated,
        truncated=response.truncated,
        status=status_name(response.status),
        step_index=response.step_index,
        exit_code=response.exit_code,
        info=MessageToDict(response.info) if response.HasField("info") else {},
        report=to_dict(response.report) if response.HasField("report") else None,
        call_id=response.call_id,
    )


def episode_options(options: Optional[Dict[str, Any]]) -> Optional[Any]:
    """The EpisodeOptions message for a dict of them (``truncation`` by name), None for none."""
    if not options:
        return None
    fields = dict(options)
    truncation = fields.pop("truncation", None)
    message = pb.EpisodeOptions(**fields)
    if truncation is not None:
        message.truncation = pb.TruncationPolicy.Value(f"TRUNCATION_POLICY_{str(truncation).upper()}")
    return message


__all__ = ["ResetResult", "StepResult", "episode_options", "status_name", "step_result", "to_dict"]
