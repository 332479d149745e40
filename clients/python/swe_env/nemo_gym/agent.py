"""``SweEnvAgent``: NeMo Gym's own ``GymnasiumAgent`` for the swe_env resources server, keeping NeMo
Gym's ``/run`` contract for failures.

NeMo Gym's ``GymnasiumAgent`` raises out of ``/run`` when the resources server refuses a Reset or
the model server answers an error, and ``ng_collect_rollouts`` (``nemo_gym.rollout_collection``,
0.7) ends the whole collection on a failed ``/run`` unless ``route_failures_to_sidecar`` is set:
the rows already collected are not written. NeMo Gym's agents that own their failures answer
``/run`` with a row carrying ``_ng_failure_class`` instead, which the collector writes to the
failures sidecar (``<output>_failures.jsonl``, retried on resume), never to the rollouts: the
sample is not trained or scored. ``SweEnvAgent`` does that for every failure of a rollout (a
Reset refused or unreachable, a model server error, a step the resources server could not
answer); the resources server closes the episode in each case. A rollout that ran but whose
environment failed (an ``INFRA_ERROR`` step: ``info.mask_sample``) keeps its row, with NeMo Gym's
own top-level ``mask_sample`` set, which keeps it out of NeMo Gym's scores.
"""
from __future__ import annotations

import logging
from typing import Any, Dict

from fastapi import Request

from nemo_gym.openai_utils import NeMoGymResponse
from responses_api_agents.gymnasium_agent.app import GymnasiumAgent, GymnasiumAgentConfig, GymnasiumAgentRunRequest, GymnasiumRunResponse

logger = logging.getLogger(__name__)

#: ``nemo_gym.rollout_collection.NG_FAILURE_CLASS_KEY`` and ``AGENT_RUN_ERROR_FAILURE_CLASS`` (0.7):
#: named here because that module imports NeMo Gym's whole CLI stack, which a server need not have.
NG_FAILURE_CLASS_KEY = "_ng_failure_class"
AGENT_RUN_ERROR_FAILURE_CLASS = "agent_run_error"
#: Row keys a dataset row must not carry into the result (NeMo Gym's agents drop them the same way).
_RESERVED_RESULT_KEYS = ("reward", "response", "error", "mask_sample", NG_FAILURE_CLASS_KEY, "_ng_failure_terminal", "_ng_no_persist")


class SweEnvAgentConfig(GymnasiumAgentConfig):
    pass


class SweEnvAgent(GymnasiumAgent):
    config: SweEnvAgentConfig

    async def run(self, request: Request, body: GymnasiumAgentRunRequest) -> GymnasiumRunResponse:
        try:
            result = await super().run(request, body)
        except Exception as error:  # the rollout could not be run: a failures-sidecar row, not a 0
            said = getattr(error, "response_content", None)  # nemo_gym's raise_for_status keeps the body
            detail = f": {said[:2000].decode('utf-8', 'replace')}" if isinstance(said, bytes) and said else ""
            return self._failure_row(body, f"{type(error).__name__}: {error}{detail}")
        info = result.info or {}
        if info.get("mask_sample"):
            result.mask_sample = True
            result.failure_reason = str(info.get("error") or info.get("status") or "environment failure")[:2000]
        return result

    def _failure_row(self, body: GymnasiumAgentRunRequest, error: str) -> GymnasiumRunResponse:
        logger.warning("swe_env: rollout failed, recorded as a failure row: %s", error)
        record: Dict[str, Any] = body.model_dump(mode="json")
        for key in _RESERVED_RESULT_KEYS:
            record.pop(key, None)
        return GymnasiumRunResponse.model_validate(
            record
            | {
                "reward": 0.0,
                "response": _empty_response(body).model_dump(mode="json"),
                "mask_sample": True,
                "failure_reason": error[:2000],
                "error": error[:2000],
                NG_FAILURE_CLASS_KEY: AGENT_RUN_ERROR_FAILURE_CLASS,
            }
        )


def _empty_response(body: GymnasiumAgentRunRequest) -> NeMoGymResponse:
    """A valid empty response (NeMo Gym's failure rows carry one so ``/run`` never answers 500)."""
    return NeMoGymResponse(
        id="swe-env-failure",
        created_at=0.0,
        model=body.responses_create_params.model or "swe_env",
        object="response",
        output=[],
        parallel_tool_calls=False,
        tools=[],
        tool_choice="auto",
    )


if __name__ == "__main__":
    SweEnvAgent.run_webserver()
