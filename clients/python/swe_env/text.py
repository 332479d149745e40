"""Re-export: this module moved to swe_env.core.text (the package's layers: see swe_env/__init__.py).
Kept at its old path for the imports users and docs have; nothing inside swe_env imports it."""
from .core.text import cut_middle

__all__ = ["cut_middle"]
