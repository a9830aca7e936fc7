"""JSON tool specs as the OpenAI-style function schemas the rest of the project reads.

Benchmarks ship their tool documentation as JSON: either OpenAI's ``{"type": "function", "function": {...}}`` or
the bare ``{"name", "description", "parameters"}`` object, in the dialect of the Berkeley Function Calling
Leaderboard (BFCL), whose parameter types are Python's names (``dict``, ``float``, ``tuple``, ``any``) and whose
docs carry a ``response`` schema. :func:`function_schema` turns either into the OpenAI shape with JSON Schema
types, which :func:`agenttune.events.arguments.argument_problems` checks calls against and chat templates
render.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# BFCL's Python-flavoured type names -> JSON Schema; "any" drops the type (every value matches).
_TYPE_NAMES = {"dict": "object", "float": "number", "tuple": "array", "list": "array", "int": "integer"}
_ANY = "any"


def _json_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` with its type names (and those of nested items and properties) in JSON Schema's words."""
    result = dict(schema)
    kind = result.get("type")
    if kind == _ANY:
        del result["type"]
    elif isinstance(kind, str):
        result["type"] = _TYPE_NAMES.get(kind, kind)
    elif isinstance(kind, list):
        if _ANY in kind:
            del result["type"]
        else:
            result["type"] = [_TYPE_NAMES.get(k, k) for k in kind]
    if isinstance(result.get("items"), Mapping):
        result["items"] = _json_schema(result["items"])
    if isinstance(result.get("properties"), Mapping):
        result["properties"] = {name: _json_schema(value) for name, value in result["properties"].items()}
    return result


def function_schema(spec: Mapping[str, Any]) -> dict[str, Any]:
    """An OpenAI-style function schema from a JSON tool spec (OpenAI shape or a bare BFCL function doc).

    >>> doc = {"name": "mean", "description": "Average.", "response": {"type": "dict"},
    ...        "parameters": {"type": "dict", "properties": {"numbers": {"type": "array", "items": {"type": "float"}}},
    ...                       "required": ["numbers"]}}
    >>> schema = function_schema(doc)
    >>> schema["type"], schema["function"]["name"], schema["function"]["parameters"]["type"]
    ('function', 'mean', 'object')
    >>> schema["function"]["parameters"]["properties"]["numbers"]["items"]
    {'type': 'number'}
    """
    function = spec["function"] if spec.get("type") == "function" and "function" in spec else spec
    if not isinstance(function.get("name"), str) or not function["name"]:
        raise ValueError(f"tool spec {dict(spec)!r:.80} has no string 'name'")
    parameters = function.get("parameters") or {"type": "object", "properties": {}}
    return {
        "type": "function",
        "function": {
            "name": function["name"],
            "description": function.get("description", ""),
            "parameters": _json_schema(parameters),
        },
    }
