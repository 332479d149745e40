"""Re-export: this module moved to swe_env.client.sync_client (the package's layers: see swe_env/__init__.py).
Kept at its old path for the imports users and docs have; nothing inside swe_env imports it."""
from .client.sync_client import SweEnvClient

__all__ = ["SweEnvClient"]
