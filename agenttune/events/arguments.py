"""Check a tool call's arguments against the JSON schema of the tool's parameters.

Covers the subset of JSON Schema that ``transformers.utils.get_json_schema`` produces from Python type hints:
``type`` (one name or a list of names), ``nullable``, ``enum``, ``items`` of arrays and
``properties``/``required`` of the top-level object. Extra keys are rejected, as the model should not invent
parameters; so are NaN and infinite numbers, which JSON cannot carry.
"""

from __future__ import annotations

import math
from typing import Any

_PYTHON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list, tuple),
    "object": (dict,),
    "null": (type(None),),
}


def _matches(value: Any, schema: dict[str, Any]) -> bool:
    """Whether ``value`` has one of the schema's types (a bool is not an integer or a number)."""
    if value is None and schema.get("nullable"):
        return True
    names = schema.get("type")
    if names is None:
        return True
    for name in [names] if isinstance(names, str) else names:
        if name in ("integer", "number") and isinstance(value, bool):
            continue
        if isinstance(value, _PYTHON_TYPES.get(name, ())):
            return True
    return False


def _value_problems(path: str, value: Any, schema: dict[str, Any]) -> list[str]:
    if isinstance(value, float) and not math.isfinite(value):  # JSON has no NaN or Infinity
        return [f"'{path}' should be a finite number, got {value}"]
    if not _matches(value, schema):
        return [f"'{path}' should be {schema.get('type')}, got {type(value).__name__} {value!r:.60}"]
    if "enum" in schema and value not in schema["enum"]:
        return [f"'{path}' should be one of {schema['enum']}, got {value!r:.60}"]
    if isinstance(value, list | tuple) and "items" in schema:
        return [
            p for i, item in enumerate(value) for p in _value_problems(f"{path}[{i}]", item, schema["items"])
        ]
    return []


def argument_problems(arguments: dict[str, Any], parameters: dict[str, Any]) -> list[str]:
    """Every way ``arguments`` break ``parameters`` (a tool schema's ``parameters`` object); empty when valid.

    >>> params = {"type": "object", "properties": {"query": {"type": "string"}, "k": {"type": "integer"}},
    ...           "required": ["query"]}
    >>> argument_problems({"query": "fees", "k": 3}, params)
    []
    >>> argument_problems({"k": True, "page": 2}, params)
    ["missing required argument 'query'", "unexpected argument 'page'", "'k' should be integer, got bool True"]
    """
    properties: dict[str, Any] = parameters.get("properties", {})
    problems = [
        f"missing required argument '{name}'"
        for name in parameters.get("required", [])
        if name not in arguments
    ]
    problems += [f"unexpected argument '{name}'" for name in arguments if name not in properties]
    for name, value in arguments.items():
        if name in properties:
            problems += _value_problems(name, value, properties[name])
    return problems
