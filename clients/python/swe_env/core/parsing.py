"""Tool calls from raw model text: hermes ``<tool_call>`` JSON blocks, or a fenced bash block."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Union


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: Union[Dict[str, Any], str] = field(default_factory=dict)
    call_id: str = ""

    def arguments_json(self) -> str:
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments)


_HERMES = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)
_FENCE = re.compile(r"```(?:bash|sh|shell)\s*\n(.*?)```", re.DOTALL)


def parse_tool_calls(text: str) -> List[ToolCall]:
    """Every tool call in the text, in order. Hermes blocks win over fenced code."""
    calls: List[ToolCall] = []
    for block in _HERMES.findall(text):
        try:
            payload = json.loads(block)
        except json.JSONDecodeError:
            # Keep it: the server answers with an INVALID_ACTION observation the model can learn from.
            calls.append(ToolCall(name="", arguments=block))
            continue
        if not isinstance(payload, dict):
            calls.append(ToolCall(name="", arguments=block))
            continue
        name = str(payload.get("name", ""))
        arguments = payload.get("arguments", payload.get("parameters", {}))
        calls.append(ToolCall(name=name, arguments=arguments if isinstance(arguments, (dict, str)) else json.dumps(arguments)))
    if calls:
        return calls
    for command in _FENCE.findall(text):
        if command.strip():
            calls.append(ToolCall(name="bash", arguments={"command": command.rstrip("\n")}))
    return calls


def parse_tool_call(text: str) -> Optional[ToolCall]:
    """The first tool call in the text, or None."""
    calls = parse_tool_calls(text)
    return calls[0] if calls else None
