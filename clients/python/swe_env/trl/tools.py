"""Tool methods generated from the server's tool schemas (OpenAI function format).

TRL finds an environment's tools by listing the public functions of its class
(``inspect.getmembers(type(env), inspect.isfunction)``), dispatches a parsed tool call by the
method's ``__name__``, and shows the model the schema ``transformers.utils.get_json_schema``
builds from the method's signature, type hints and Google-style docstring. So each server tool
becomes a real function on a generated class: its name, parameters and descriptions are the
server's, and it forwards the call to the episode as the same tool call (``_call_tool``).

What a function signature cannot hold is dropped, and said so in docs/trainers.md: nested object
schemas become ``dict``, array item types become ``list``, keywords other than ``type``,
``description``, ``enum`` and ``default`` are lost.
"""
from __future__ import annotations

import inspect
import keyword
import logging
from typing import Any, Callable, Dict, List, Optional, Tuple

logger = logging.getLogger("swe_env.trl")

_JSON_TYPES: Dict[str, type] = {"string": str, "integer": int, "number": float, "boolean": bool, "array": list, "object": dict}

#: Names TRL reserves on an environment: a server tool with one of them cannot be exposed.
RESERVED = frozenset({"reset", "get_reward"})


def _python_type(schema: Dict[str, Any]) -> type:
    """The Python type transformers turns back into the schema's ``type`` (``str`` when unknown)."""
    kind = schema.get("type")
    if isinstance(kind, list):  # ["string", "null"]: the first non-null one
        kind = next((k for k in kind if k != "null"), "string")
    return _JSON_TYPES.get(str(kind), str)


def _one_line(text: str) -> str:
    # transformers' docstring parser reads one argument per line: a description on several lines
    # would lose its continuation or be taken for another argument.
    return " ".join(str(text).split())


def _docstring(description: str, properties: Dict[str, Dict[str, Any]]) -> str:
    lines = [_one_line(description) or "A swe-env tool."]
    if properties:
        lines += ["", "Args:"]
        for name, schema in properties.items():
            text = _one_line(schema.get("description") or schema.get("title") or name)
            if isinstance(schema.get("enum"), list):
                # transformers reads "(choices: [...])" at the end of an argument's text back into an enum.
                text += " (choices: " + str([str(c) for c in schema["enum"]]).replace("'", '"') + ")"
            lines.append(f"    {name}: {text}")
    return "\n".join(lines)


def _parameters(properties: Dict[str, Dict[str, Any]], required: List[str]) -> Tuple[List[inspect.Parameter], Dict[str, Any]]:
    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: Dict[str, Any] = {}
    # Python wants the parameters without a default first.
    ordered = [n for n in properties if n in required] + [n for n in properties if n not in required]
    for name in ordered:
        kind = _python_type(properties[name])
        default = inspect.Parameter.empty if name in required else properties[name].get("default")
        params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=kind))
        annotations[name] = kind
    annotations["return"] = str
    return params, annotations


def _valid_name(name: str) -> bool:
    return name.isidentifier() and not keyword.iskeyword(name) and not name.startswith("_") and name not in RESERVED


def tool_method(schema: Dict[str, Any]) -> Optional[Callable[..., Any]]:
    """An async method for one tool schema (``{"type": "function", "function": {...}}``), or None
    (logged) when TRL could not expose it: a name that is no identifier or that TRL reserves."""
    function = schema.get("function", schema)
    name = str(function.get("name", ""))
    parameters = function.get("parameters") or {}
    properties: Dict[str, Dict[str, Any]] = dict(parameters.get("properties") or {})
    required = [str(r) for r in parameters.get("required") or []]
    bad = [p for p in [name, *properties] if not p.isidentifier() or keyword.iskeyword(p)]
    if not _valid_name(name) or bad:
        logger.warning("swe_env.trl: the server's tool %r cannot be a TRL tool method (names %s): not exposed", name, bad or [name])
        return None

    async def call(self: Any, **arguments: Any) -> str:
        # The arguments go to the server as the model gave them (the server validates them).
        return await self._call_tool(name, arguments)

    params, annotations = _parameters(properties, required)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = _docstring(str(function.get("description") or ""), properties)
    call.__annotations__ = annotations
    call.__signature__ = inspect.Signature(params, return_annotation=str)  # type: ignore[attr-defined]
    return call


def tool_methods(schemas: List[Dict[str, Any]]) -> Dict[str, Callable[..., Any]]:
    """Name -> method for the tools TRL can expose, in the server's order."""
    methods: Dict[str, Callable[..., Any]] = {}
    for schema in schemas:
        method = tool_method(schema)
        if method is not None:
            methods[method.__name__] = method
    return methods


__all__ = ["RESERVED", "tool_method", "tool_methods"]
