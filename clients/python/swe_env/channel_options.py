"""Re-export: this module moved to swe_env.core.channel (the package's layers: see swe_env/__init__.py).
Kept at its old path for the imports users and docs have; nothing inside swe_env imports it."""
from .core.channel import CHANNEL_OPTIONS, MOVE_ON, RETRYABLE

__all__ = ["CHANNEL_OPTIONS", "MOVE_ON", "RETRYABLE"]
