"""Discoverable tools: functions the knowledge base names, reached only through the gateway tools.

A discoverable tool is a plain function ``tool(db, **arguments) -> str`` registered with :func:`discoverable`
for one side: ``agent`` tools are unlocked (``unlock_discoverable_agent_tool``) and then called
(``call_discoverable_agent_tool``) by the agent; ``user`` tools are given to the user
(``give_discoverable_user_tool``) and called by the user (``call_discoverable_user_tool``). Its docstring is
what unlocking shows the agent (first paragraph: the description; ``Args:``: the parameters), its annotations
are what :func:`bind_arguments` checks the call's JSON arguments against. The tools themselves live in
:mod:`~agenttune.benchmarks.tau2.banking.agent_tools` and :mod:`~agenttune.benchmarks.tau2.banking.user_tools`.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, get_type_hints

Side = Literal["agent", "user"]
Kind = Literal["read", "write", "generic"]


@dataclass(frozen=True)
class DiscoverableTool:
    name: str
    side: Side
    kind: Kind
    function: Callable[..., str]
    description: str
    parameters: dict[str, str]  # name -> its description from the docstring

    def schema(self) -> dict[str, Any]:
        """An OpenAI-style schema of the tool (its parameters, typed from the annotations)."""
        hints = get_type_hints(self.function)
        types = {str: "string", int: "integer", float: "number", bool: "boolean"}
        params = list(inspect.signature(self.function).parameters.values())[1:]
        properties = {
            p.name: {
                "type": types.get(hints.get(p.name), "number"),
                "description": self.parameters.get(p.name, ""),
            }
            for p in params
        }
        required = [p.name for p in params if p.default is inspect.Parameter.empty]
        parameters = {"type": "object", "properties": properties, "required": required}
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": parameters},
        }

    def card(self) -> str:
        """What the agent is shown when it unlocks (or gives) the tool."""
        signature = inspect.signature(self.function)
        lines = [f"{self.name}: {self.description}", "Parameters:"]
        for name, param in list(signature.parameters.items())[1:]:
            optional = (
                "" if param.default is inspect.Parameter.empty else f" (optional, default {param.default!r})"
            )
            lines.append(f"  - {name}{optional}: {self.parameters.get(name, '')}")
        if len(lines) == 2:
            lines.append("  (none)")
        return "\n".join(lines)


CATALOGUE: dict[str, DiscoverableTool] = {}


def discoverable(side: Side, kind: Kind) -> Callable[[Callable[..., str]], Callable[..., str]]:
    """Register ``function`` as a discoverable tool of ``side`` (its name is the function's name)."""

    def register(function: Callable[..., str]) -> Callable[..., str]:
        doc = inspect.getdoc(function) or ""
        description, _, rest = doc.partition("\n\n")
        parameters = dict(re.findall(r"^\s+(\w+): (.+)$", rest.partition("Args:")[2], flags=re.MULTILINE))
        CATALOGUE[function.__name__] = DiscoverableTool(
            function.__name__, side, kind, function, " ".join(description.split()), parameters
        )
        return function

    return register


def lookup(name: str, side: Side) -> DiscoverableTool:
    tool = CATALOGUE.get(name)
    if tool is None or tool.side != side:
        raise ValueError(
            f"unknown {side} discoverable tool {name!r}; search the knowledge base for the exact name"
        )
    return tool


def parse_arguments(arguments: str | dict[str, Any] | None) -> dict[str, Any]:
    """The gateway's ``arguments``: a JSON object, given as a string (as the tasks do) or as an object."""
    if arguments is None or arguments == "":
        return {}
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError as error:
            raise ValueError(f"arguments is not valid JSON: {error}") from error
    if not isinstance(arguments, dict):
        raise ValueError(f"arguments must be a JSON object, got {type(arguments).__name__}")
    return arguments


def bind_arguments(tool: DiscoverableTool, arguments: dict[str, Any]) -> dict[str, Any]:
    """``arguments`` checked against the tool's signature: no unknown or missing names, numbers where numbers
    are due (an integral float is accepted for an int, an int for a float), booleans for booleans."""
    signature = inspect.signature(tool.function)
    hints = get_type_hints(tool.function)
    params = dict(list(signature.parameters.items())[1:])
    unknown = sorted(set(arguments) - set(params))
    if unknown:
        raise ValueError(
            f"{tool.name} has no parameter {', '.join(unknown)}; it takes {', '.join(params) or 'none'}"
        )
    missing = [n for n, p in params.items() if p.default is inspect.Parameter.empty and n not in arguments]
    if missing:
        raise ValueError(f"{tool.name} needs {', '.join(missing)}")
    return {name: _coerce(tool.name, name, value, hints.get(name)) for name, value in arguments.items()}


def _coerce(tool: str, name: str, value: Any, hint: Any) -> Any:
    base = {int: int, float: float, bool: bool, str: str}.get(hint)
    if value is None or base is None:
        return value
    ok = {
        bool: isinstance(value, bool),
        int: isinstance(value, int | float) and not isinstance(value, bool) and float(value).is_integer(),
        float: isinstance(value, int | float) and not isinstance(value, bool),
        str: isinstance(value, str),
    }[base]
    if not ok:
        raise ValueError(f"{tool}: {name} must be of type {base.__name__}, got {value!r}")
    return base(value)
