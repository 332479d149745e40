"""Re-export: this module moved to swe_env.client.branching (the package's layers: see swe_env/__init__.py).
Kept at its old path for the imports users and docs have; nothing inside swe_env imports it."""
from .client.branching import Divergence, ForkResult, ReplayResult

__all__ = ["Divergence", "ForkResult", "ReplayResult"]
