"""Re-export: this module moved to swe_env.fleet.prefetch (the package's layers: see swe_env/__init__.py).
Kept at its old path for the imports users and docs have; nothing inside swe_env imports it."""
from .fleet.prefetch import (
    MAX_IDS_PER_CALL,
    ImageState,
    PrefetchResult,
    image_state,
    prefetch_tasks,
)

__all__ = [
    "MAX_IDS_PER_CALL",
    "ImageState",
    "PrefetchResult",
    "image_state",
    "prefetch_tasks",
]
