"""What BFCL's multi-turn tools are, as the self-evolution method reads a domain: every tool's schema, whether it
reads or writes, and the fields it returns.

BFCL annotates no tool as read or write, so :func:`tool_kinds` measures it: every reference call of the
``multi_turn_base`` tasks runs on the task's instances, and a tool whose call changed an instance's public state
(by BFCL's own comparison, the one its state checker makes) is a write; ``cd`` is one, since the working folder
is state the checker compares. A tool no reference call uses counts as a write too, the cautious side for a
controller that gates writes.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

from agenttune.benchmarks.bfcl.script import gold_call
from agenttune.events.schema import Event, ToolCallPayload
from agenttune.harness.bfcl import (
    CATEGORIES,
    bfcl_classes,
    bfcl_tool_docs,
    load_bfcl_ground_truth,
    load_bfcl_records,
    load_bfcl_tasks,
)
from agenttune.harness.stateful_tools import StatefulToolsHarness
from agenttune.harness.tool_specs import function_schema


@functools.cache
def multi_turn_classes() -> tuple[str, ...]:
    """The classes the multi-turn categories' tasks involve."""
    involved = {
        name for category in CATEGORIES for r in load_bfcl_records(category) for name in r["involved_classes"]
    }
    return tuple(sorted(involved))


@functools.cache
def all_tool_docs() -> dict[str, dict[str, Any]]:
    """Tool name -> its BFCL function doc, over every multi-turn class."""
    docs = bfcl_tool_docs()
    return {doc["name"]: doc for name in multi_turn_classes() for doc in docs[name]}


def tool_schemas() -> list[dict[str, Any]]:
    """OpenAI-style schemas of every multi-turn tool."""
    return [function_schema(doc) for doc in all_tool_docs().values()]


def tool_outputs() -> dict[str, list[str]]:
    """Tool name -> the fields its BFCL doc says it returns."""
    return {
        name: sorted(doc.get("response", {}).get("properties", {})) for name, doc in all_tool_docs().items()
    }


@functools.cache
def tool_kinds() -> dict[str, str]:
    """Tool name -> ``read`` or ``write``, measured on the reference calls of ``multi_turn_base`` (module
    docstring)."""
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import _compare_instances

    harness = StatefulToolsHarness(bfcl_classes())
    ground_truth = load_bfcl_ground_truth("multi_turn_base")
    kinds: dict[str, str] = {}
    for task in load_bfcl_tasks("multi_turn_base"):
        harness.reset(task)
        for turn in ground_truth[task.id]:
            for source in turn:
                name, arguments = gold_call(source, task.classes)
                before = {key: copy.deepcopy(value) for key, value in harness.state.instances.items()}
                harness.registry.execute(
                    Event(payload=ToolCallPayload(call_id="k", name=name, arguments=arguments))
                )
                changed = any(
                    not _compare_instances(instance, before[key])[0]
                    for key, instance in harness.state.instances.items()
                )
                if changed or kinds.get(name) != "write":
                    kinds[name] = "write" if changed else "read"
    return {name: kinds.get(name, "write") for name in all_tool_docs()}
