"""verl's base classes when verl is installed, minimal stand-ins with the same shape when not."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

try:  # verl >= 0.5 keeps the agent loop under verl.experimental
    from verl.experimental.agent_loop.agent_loop import AgentLoopBase, AgentLoopOutput, register  # type: ignore

    HAVE_VERL = True
except ImportError:  # pragma: no cover - depends on the environment
    HAVE_VERL = False

    class AgentLoopBase:  # type: ignore[no-redef]
        """Stand-in for verl's AgentLoopBase (trainer_config, server_manager, tokenizer, ...)."""

        def __init__(self, trainer_config: Any = None, server_manager: Any = None, tokenizer: Any = None, processor: Any = None, **kwargs: Any) -> None:
            self.config = getattr(trainer_config, "config", trainer_config)
            self.server_manager = server_manager
            self.tokenizer = tokenizer
            self.processor = processor

    @dataclass
    class AgentLoopOutput:  # type: ignore[no-redef]
        prompt_ids: List[int]
        response_ids: List[int]
        response_mask: List[int]
        response_logprobs: Optional[List[float]] = None
        reward_score: Optional[float] = None
        num_turns: int = 0
        metrics: Dict[str, Any] = field(default_factory=dict)
        extra_fields: Dict[str, Any] = field(default_factory=dict)

    _REGISTRY: Dict[str, type] = {}

    def register(name: str) -> Callable[[type], type]:  # type: ignore[no-redef]
        def decorate(cls: type) -> type:
            _REGISTRY[name] = cls
            return cls

        return decorate


try:
    from verl.tools.base_tool import BaseTool  # type: ignore
    from verl.tools.schemas import OpenAIFunctionToolSchema, ToolResponse  # type: ignore
except ImportError:  # pragma: no cover - depends on the environment

    class ToolResponse:  # type: ignore[no-redef]
        def __init__(self, text: Optional[str] = None, **kwargs: Any) -> None:
            self.text = text

    OpenAIFunctionToolSchema = dict  # type: ignore[misc,assignment]

    class BaseTool:  # type: ignore[no-redef]
        def __init__(self, config: dict, tool_schema: Any) -> None:
            self.config = config
            self.tool_schema = tool_schema
            self.name = tool_schema["function"]["name"] if isinstance(tool_schema, dict) else tool_schema.function.name


__all__ = ["AgentLoopBase", "AgentLoopOutput", "BaseTool", "HAVE_VERL", "OpenAIFunctionToolSchema", "ToolResponse", "register"]
