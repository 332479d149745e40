"""Re-export: this module moved to swe_env.core.parsing (the package's layers: see swe_env/__init__.py).
Kept at its old path for the imports users and docs have; nothing inside swe_env imports it."""
from .core.parsing import ToolCall, parse_tool_call, parse_tool_calls

__all__ = ["ToolCall", "parse_tool_call", "parse_tool_calls"]
