"""The client layer: AsyncSweEnvClient (a Channel, a Placement and a Branching, composed), its
synchronous facade SweEnvClient, the Gym-shaped envs and BatchPrefetcher. Built on core/ and
fleet/; the integrations build on it (tests/test_layers.py keeps it so).

``swe_env.client`` was the module of the clients before the layers: the names it exported are
still exported here (``_score`` and ``resolve_all`` too, imported from it before)."""
from ..core.channel import CHANNEL_OPTIONS
from ..core.errors import SweEnvError
from ..core.results import ResetResult, StepResult
from ..fleet.placement import _score, resolve_all  # noqa: F401  (imported from swe_env.client before)
from ..fleet.prefetch import PrefetchResult
from .async_client import AsyncSweEnvClient
from .sync_client import SweEnvClient

__all__ = ["AsyncSweEnvClient", "CHANNEL_OPTIONS", "PrefetchResult", "ResetResult", "StepResult", "SweEnvClient", "SweEnvError"]
