"""BFCL's oracle: a task's ground-truth calls played as agent actions, one call per assistant turn, and a short
reply closing each user turn (a turn whose reference is empty, where the agent cannot act yet, gets only the
reply).

A reference call is Python source (``sort('final_report.pdf')``); :func:`gold_call` reads it as a tool name and
named arguments, binding positional ones to the method's parameters, as a model's JSON tool call names them.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Sequence
from typing import Any

from agenttune.events.schema import Event, TextPayload, ToolCallPayload
from agenttune.harness.bfcl import bfcl_classes
from agenttune.harness.stateful_tools import StatefulTask

TURN_DONE = "Done."


def _method(name: str, classes: Sequence[str]) -> Any:
    import importlib

    paths = bfcl_classes()
    for class_name in classes:
        module, _, attribute = paths[class_name].rpartition(".")
        method = getattr(getattr(importlib.import_module(module), attribute), name, None)
        if method is not None:
            return method
    raise ValueError(f"no class of {list(classes)} has a method {name!r}")


def gold_call(source: str, classes: Sequence[str]) -> tuple[str, dict[str, Any]]:
    """The tool name and named arguments of one reference call among ``classes``' methods.

    >>> gold_call("mv(source='a', destination='b')", ["GorillaFileSystem"])
    ('mv', {'source': 'a', 'destination': 'b'})
    """
    expression = ast.parse(source, mode="eval").body
    if not isinstance(expression, ast.Call) or not isinstance(expression.func, ast.Name):
        raise ValueError(f"not a plain function call: {source!r}")
    name = expression.func.id
    args = [ast.literal_eval(argument) for argument in expression.args]
    kwargs = {keyword.arg: ast.literal_eval(keyword.value) for keyword in expression.keywords}
    bound = inspect.signature(_method(name, classes)).bind(None, *args, **kwargs).arguments
    return name, {key: value for key, value in list(bound.items())[1:]}  # without self


def oracle_script(task: StatefulTask, ground_truth: Sequence[Sequence[str]]) -> list[Event]:
    """Every turn's reference calls, then a reply that ends the turn."""
    script = []
    for turn, calls in enumerate(ground_truth):
        for index, source in enumerate(calls):
            name, arguments = gold_call(source, task.classes)
            script.append(
                Event(payload=ToolCallPayload(call_id=f"gold_{turn}_{index}", name=name, arguments=arguments))
            )
        script.append(Event(payload=TextPayload(text=TURN_DONE)))
    return script
