"""Re-export: this module moved to swe_env.client.env (the package's layers: see swe_env/__init__.py).
Kept at its old path for the imports users and docs have; nothing inside swe_env imports it."""
from .client.env import Action, AsyncSweEnv, SweEnv, to_tool_call

__all__ = ["Action", "AsyncSweEnv", "SweEnv", "to_tool_call"]
