"""Toolsets a workflow's ``tool`` nodes call (``<toolset>.<function>``) and input sets its cases come from."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agenttune.workflows import kyc

TOOLSETS: dict[str, list[Callable[..., Any]]] = {"kyc": kyc.TOOLS}
INPUT_SETS: dict[str, Callable[[], list[dict[str, Any]]]] = {"kyc": kyc.applicants}


def tool_names(toolset: str) -> list[str]:
    return [fn.__name__ for fn in TOOLSETS.get(toolset, ())]


def registry(toolset: str):
    """A :class:`~agenttune.harness.tools.ToolRegistry` of ``toolset`` (imported here: composing a config never
    imports transformers)."""
    from agenttune.harness.tools import ToolRegistry

    if toolset not in TOOLSETS:
        raise ValueError(f"unknown toolset {toolset!r}; choose one of {sorted(TOOLSETS)}")
    return ToolRegistry(TOOLSETS[toolset])


def input_set(name: str) -> list[dict[str, Any]]:
    if name not in INPUT_SETS:
        raise ValueError(f"workflow.inputs={name!r} is unknown; use benchmark or one of {sorted(INPUT_SETS)}")
    return INPUT_SETS[name]()
