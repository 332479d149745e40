"""The wire layer: channels and calls, errors, the calls' results, tool-call parsing, and the
event loop thread of the synchronous facades. It imports nothing of swe_env but the generated
stubs; fleet/, client/ and the integrations build on it (tests/test_layers.py keeps it so)."""
from .channel import CHANNEL_OPTIONS, MOVE_ON, RETRYABLE, Channel
from .errors import SweEnvError, from_rpc_error
from .loop import LoopThread
from .parsing import ToolCall, parse_tool_call, parse_tool_calls
from .results import ResetResult, StepResult
from .text import cut_middle

__all__ = [
    "CHANNEL_OPTIONS",
    "Channel",
    "LoopThread",
    "MOVE_ON",
    "RETRYABLE",
    "ResetResult",
    "StepResult",
    "SweEnvError",
    "ToolCall",
    "cut_middle",
    "from_rpc_error",
    "parse_tool_call",
    "parse_tool_calls",
]
