"""Deterministic trajectory metrics over any EventLog: how the agent used its tools, not whether it was right.

Per log (:func:`trajectory_metrics`) and over many (:func:`summarize`); only the agent's own events count (any
actor other than user, env, tool, system and judge: a named agent of a multi-agent log included):

* ``tool_calls``: tool calls made, plus malformed calls (parser ERROR events).
* ``tool_argument_accuracy``: the share of those calls that name a tool the log offers (``log.tools``) with
  arguments its JSON schema accepts (:func:`agenttune.events.arguments.argument_problems`); a malformed call
  is wrong. ``None`` when the log offers no tools (nothing to check against).
* ``redundant_calls``: calls repeating an earlier call of the log exactly (same tool, same arguments).
* ``loops``: maximal runs where the same block of 1 to :data:`MAX_PERIOD` consecutive calls repeats at least
  :data:`LOOP_REPEATS` times in a row (``A A A``, ``A B A B A B``); ``looped`` is whether the log has one.
* ``errors`` / ``recovered``: error results (TOOL_RESULT with ``is_error``, ERROR events from the parser, a
  tool or the harness); an error is recovered when a later tool call of the log gets a result that is not an
  error.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from agenttune.events.arguments import argument_problems
from agenttune.events.schema import Event, EventKind, EventLog

NOT_AGENTS = frozenset({"user", "env", "tool", "system", "judge"})
MAX_PERIOD = 3
LOOP_REPEATS = 3
ERROR_SOURCES = frozenset({"parser", "tool", "harness"})


@dataclass(frozen=True)
class TrajectoryMetrics:
    tool_calls: int
    valid_calls: int | None  # None: the log offers no tool schemas
    redundant_calls: int
    loops: int
    errors: int
    recovered: int

    @property
    def tool_argument_accuracy(self) -> float | None:
        if self.valid_calls is None or not self.tool_calls:
            return None
        return self.valid_calls / self.tool_calls

    @property
    def looped(self) -> bool:
        return self.loops > 0


def is_agent(event: Event) -> bool:
    return event.actor not in NOT_AGENTS


def call_key(event: Event) -> str:
    """A tool call's identity: its name and its arguments as canonical JSON."""
    return f"{event.payload.name}:{json.dumps(event.payload.arguments, sort_keys=True, default=str)}"


def _schemas(log: EventLog) -> dict[str, dict[str, Any]]:
    schemas = {}
    for tool in log.tools:
        function = tool.get("function", tool)
        schemas[function["name"]] = function.get("parameters", {"type": "object", "properties": {}})
    return schemas


def count_loops(keys: list[str]) -> int:
    """Maximal runs of ``keys`` where a block of 1..MAX_PERIOD keys repeats LOOP_REPEATS times in a row."""
    loops, start = 0, 0
    while start < len(keys):
        end = start
        for period in range(1, MAX_PERIOD + 1):
            block = keys[start : start + period]
            if len(block) < period:
                break
            repeats = 1
            while keys[start + repeats * period : start + (repeats + 1) * period] == block:
                repeats += 1
            if repeats >= LOOP_REPEATS:
                end = max(end, start + repeats * period)
        if end > start:
            loops += 1
            start = end
        else:
            start += 1
    return loops


def trajectory_metrics(log: EventLog) -> TrajectoryMetrics:
    """The metrics of one log's events (all branches, in order)."""
    schemas = _schemas(log)
    calls = [e for e in log.events if is_agent(e) and e.kind == EventKind.TOOL_CALL]
    malformed = [e for e in log.events if e.kind == EventKind.ERROR and e.payload.source == "parser"]
    valid = None
    if schemas:
        valid = sum(
            c.payload.name in schemas and not argument_problems(c.payload.arguments, schemas[c.payload.name])
            for c in calls
        )
    keys = [call_key(c) for c in calls]
    redundant = len(keys) - len(set(keys))
    errors = recovered = 0
    for index, event in enumerate(log.events):
        if _is_error(event):
            errors += 1
            recovered += any(
                e.kind == EventKind.TOOL_RESULT and not e.payload.is_error for e in log.events[index + 1 :]
            )
    return TrajectoryMetrics(
        tool_calls=len(calls) + len(malformed),
        valid_calls=valid,
        redundant_calls=redundant,
        loops=count_loops(keys),
        errors=errors,
        recovered=recovered,
    )


def _is_error(event: Event) -> bool:
    if event.kind == EventKind.TOOL_RESULT:
        return event.payload.is_error
    return event.kind == EventKind.ERROR and event.payload.source in ERROR_SOURCES


def summarize(logs: Iterable[EventLog]) -> dict[str, Any]:
    """Totals and rates over many logs: argument accuracy over the calls of logs that offer tools, redundant
    calls per call, loop rate per log, recovery rate per error (a rate is None when nothing was counted)."""
    per_log = [trajectory_metrics(log) for log in logs]
    totals = {
        name: sum(getattr(m, name) for m in per_log) for name in ("tool_calls", "redundant_calls", "loops")
    }
    checked = [m for m in per_log if m.valid_calls is not None]
    checked_calls = sum(m.tool_calls for m in checked)
    errors = sum(m.errors for m in per_log)
    return {
        "logs": len(per_log),
        **totals,
        "tool_argument_accuracy": _rate(sum(m.valid_calls for m in checked), checked_calls),
        "redundant_call_rate": _rate(totals["redundant_calls"], totals["tool_calls"]),
        "loop_rate": _rate(sum(m.looped for m in per_log), len(per_log)),
        "errors": errors,
        "recovery_rate": _rate(sum(m.recovered for m in per_log), errors),
    }


def _rate(count: int, total: int) -> float | None:
    return count / total if total else None


def as_dict(metrics: TrajectoryMetrics) -> dict[str, Any]:
    return {
        **asdict(metrics),
        "tool_argument_accuracy": metrics.tool_argument_accuracy,
        "looped": metrics.looped,
    }
