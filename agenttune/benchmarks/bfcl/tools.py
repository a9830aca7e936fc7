"""What BFCL's multi-turn tools are, as the self-evolution method reads a domain: every tool's schema, whether it
reads or writes, and the fields it returns.

BFCL annotates no tool as read or write, so :func:`tool_kinds` measures it: every reference call of the
multi-turn tasks runs on the task's instances, and a tool whose call changed an instance's public state (by BFCL's
own comparison, the one its state checker makes) is a write. ``cd`` is a read by that measure: the working folder
is private state, which BFCL's checker does not compare. A tool of a stateless class (MathAPI) reads. A tool no
reference call uses is named by its verbs: a write unless a word of its name reads (``get``, ``list``, ``search``
...; :data:`READ_VERBS`).
"""

from __future__ import annotations

import copy
import functools
import re
from typing import Any

from agenttune.benchmarks.bfcl.script import gold_call
from agenttune.events.schema import Event, ToolCallPayload
from agenttune.harness.bfcl import (
    CATEGORIES,
    bfcl_classes,
    bfcl_stateless_classes,
    bfcl_tool_docs,
    load_bfcl_ground_truth,
    load_bfcl_records,
    load_bfcl_tasks,
)
from agenttune.harness.stateful_tools import StatefulToolsHarness
from agenttune.harness.tool_specs import function_schema

READ_VERBS = {
    "get",
    "list",
    "search",
    "view",
    "display",
    "check",
    "estimate",
    "find",
    "compute",
    "retrieve",
    "filter",
}


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


def _named_kind(name: str) -> str:
    """The kind a tool's name says: ``read`` when one of its words is a :data:`READ_VERBS` verb."""
    words = re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower().split("_")
    return "read" if READ_VERBS & set(words) else "write"


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
    """Tool name -> ``read`` or ``write``, measured on the reference calls of the base, miss_func and miss_param
    tasks (module docstring; long_context repeats base's calls on larger states)."""
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import _compare_instances

    harness = StatefulToolsHarness(bfcl_classes())
    kinds: dict[str, str] = {}
    categories = [category for category in CATEGORIES if category != "multi_turn_long_context"]
    for task, calls in ((t, load_bfcl_ground_truth(c)[t.id]) for c in categories for t in load_bfcl_tasks(c)):
        harness.reset(task)
        for turn in calls:
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
    docs = bfcl_tool_docs()
    stateless = {doc["name"]: "read" for name in bfcl_stateless_classes() for doc in docs[name]}
    return {name: _named_kind(name) for name in all_tool_docs()} | kinds | stateless
