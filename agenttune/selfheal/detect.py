"""Failures found in EventLogs, each with why it failed and the failure attribution's categories.

An episode failed when any of these holds: its episode REWARD ``self_heal.reward`` is below
``self_heal.reward_threshold`` (``low_reward``), it holds an error event (``errors``: a tool error result, a parser,
tool or harness ERROR), it loops (``loop``: :mod:`agenttune.events.trajectory`), or it ran out of turns or steps
(``max_steps``: its last TURN_COMPLETE says ``max_turns`` or ``max_steps``). The categories come from
:func:`agenttune.selfevolve.attribution.attribute` (max steps, tool error, stall, redundant read, strategy).

A workflow's audit log holds node executions too; only its agent episodes (``metadata.kind`` agent or evaluate)
are read, every log of any other file.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from agenttune.events.io import load_jsonl
from agenttune.events.schema import EventKind, EventLog
from agenttune.events.trajectory import trajectory_metrics
from agenttune.selfevolve.attribution import attribute
from agenttune.workflows.datasets import EPISODE_KINDS

OUT_OF_BUDGET = ("max_turns", "max_steps")


@dataclass(frozen=True)
class Failure:
    log: EventLog
    reasons: tuple[str, ...]  # low_reward | errors | loop | max_steps
    categories: tuple[str, ...]  # the failure attribution's, most severe first

    @property
    def task_id(self) -> str:
        return self.log.task_id


def read_episodes(paths: Iterable[str | Path]) -> list[EventLog]:
    """The episodes of EventLog files and folders (every ``.jsonl`` under a folder); of an audit log, its agent
    episodes only."""
    logs = []
    for path in paths:
        path = Path(path)
        for file in sorted(path.rglob("*.jsonl")) if path.is_dir() else [path]:
            logs += [log for log in load_jsonl(file) if log.metadata.get("kind", "agent") in EPISODE_KINDS]
    return logs


def failure_reasons(log: EventLog, reward: str, threshold: float) -> tuple[str, ...]:
    metrics = trajectory_metrics(log)
    ends = [e.payload.reason for e in log.events if e.kind == EventKind.TURN_COMPLETE]
    reasons = {
        "low_reward": log.rewards().get(reward, 0.0) < threshold,
        "errors": metrics.errors > 0,
        "loop": metrics.looped,
        "max_steps": bool(ends) and ends[-1] in OUT_OF_BUDGET,
    }
    return tuple(name for name, found in reasons.items() if found)


def detect_failures(logs: Iterable[EventLog], reward: str, threshold: float) -> list[Failure]:
    """The failed episodes of ``logs`` (see the module docstring), in order."""
    failures = []
    for log in logs:
        reasons = failure_reasons(log, reward, threshold)
        if reasons:
            tool_kinds = {tool.get("function", tool)["name"]: "read" for tool in log.tools}
            categories = tuple(a.category for a in attribute(log, tool_kinds))
            failures.append(Failure(log, reasons, categories))
    return failures
