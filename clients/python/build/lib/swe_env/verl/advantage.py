"""``swe_env_grpo``: verl's GRPO outcome advantage with masked samples left out of their group.

The agent loop masks a sample the environment failed on (``response_mask`` all zeros), so none of
its tokens reach the loss. With plain ``grpo`` its reward of 0 would still enter its group's mean
and std and shift the advantages of the group's other samples; this estimator runs verl's own
``compute_grpo_outcome_advantage`` on the unmasked samples only and gives masked ones advantage 0.
Select it with ``algorithm.adv_estimator=swe_env_grpo``; the trainer process must import this
module (``swe_env.verl`` does; e.g. ``actor_rollout_ref.model.external_lib=swe_env.verl``).
"""
from __future__ import annotations

from typing import Any, Tuple

import numpy as np
import torch
from verl.trainer.ppo.core_algos import ADV_ESTIMATOR_REGISTRY, compute_grpo_outcome_advantage, register_adv_est

NAME = "swe_env_grpo"


def compute_swe_env_grpo_advantage(
    token_level_rewards: torch.Tensor,
    response_mask: torch.Tensor,
    index: np.ndarray,
    epsilon: float = 1e-6,
    norm_adv_by_std_in_grpo: bool = True,
    config: Any = None,
    **kwargs: Any,
) -> Tuple[torch.Tensor, torch.Tensor]:
    kept = response_mask.sum(dim=-1) > 0
    advantages = torch.zeros_like(token_level_rewards)
    returns = torch.zeros_like(token_level_rewards)
    if kept.any():
        rows = kept.nonzero(as_tuple=True)[0]
        adv, ret = compute_grpo_outcome_advantage(
            token_level_rewards[rows],
            response_mask[rows],
            np.asarray(index)[rows.cpu().numpy()],
            epsilon=epsilon,
            norm_adv_by_std_in_grpo=norm_adv_by_std_in_grpo,
            config=config,
        )
        advantages[rows], returns[rows] = adv, ret
    return advantages, returns


if ADV_ESTIMATOR_REGISTRY.get(NAME) is None:
    register_adv_est(NAME)(compute_swe_env_grpo_advantage)
