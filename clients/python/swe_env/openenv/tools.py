"""The swe-env server's tool schemas (OpenAI function format, as Reset / GetTask give them) as
OpenEnv's MCP ``Tool`` (name, description, JSON Schema of the input): what ``tools/list`` answers."""
from __future__ import annotations

from typing import Any, Dict, List, Mapping

from openenv.core.env_server.mcp_types import Tool


def mcp_tool(spec: Mapping[str, Any]) -> Tool:
    """One OpenAI-format tool (``{"type": "function", "function": {...}}`` or the bare function)."""
    function: Mapping[str, Any] = spec.get("function", spec)
    parameters: Dict[str, Any] = dict(function.get("parameters") or {"type": "object", "properties": {}})
    return Tool(name=str(function["name"]), description=str(function.get("description", "")), input_schema=parameters)


def mcp_tools(specs: List[Mapping[str, Any]]) -> List[Tool]:
    return [mcp_tool(spec) for spec in specs]
