"""Re-export: this module moved to swe_env.fleet.placement (the package's layers: see swe_env/__init__.py).
Kept at its old path for the imports users and docs have; nothing inside swe_env imports it."""
from .fleet.placement import Placement, _score, resolve_all

__all__ = ["Placement", "_score", "resolve_all"]
