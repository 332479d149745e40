"""swe-env for TRL's ``GRPOTrainer`` (trl 1.16): ``SweEnvSpec`` gives ``train_dataset``,
``environment_factory`` and ``reward_funcs`` in TRL's own shape (see ``spec.py``, and
``rollout.py`` for how each part of TRL's contract is met).

Nothing here imports trl: the trainer calls the environment, never the other way round, so this
package imports (and is type-checked) without trl installed; ``datasets`` is imported only when
``train_dataset`` is built.
"""
from .rollout import SweEnvRollout
from .spec import SweEnvSpec
from .tools import tool_method, tool_methods

__all__ = ["SweEnvRollout", "SweEnvSpec", "tool_method", "tool_methods"]
