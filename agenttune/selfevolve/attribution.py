"""Failure attribution: sort low-reward trajectories by the first visible symptom of what went wrong.

Categories, most severe first (a task keeps at most its two most severe, one of each kind):

1. ``max_steps_exceeded``: the episode ran out of its step budget.
2. ``tool_execution_error``: a tool call came back as an error (step of the first one).
3. ``progress_stall``: three or more consecutive read-only turns starting after 30% of the budget.
4. ``redundant_read``: a read call repeated with the same arguments (step of the first repeat).
5. ``strategy_error``: reward <= 0.5 with none of the symptoms above (the plan itself was wrong); step of
   the last action.

A "turn" is one agent action (its ``step``); a read-only turn is a call of a tool whose kind is ``read``.
Only logs whose reward is at or below 0.5 are attributed, and none whose failure is the simulated user's
(:func:`~agenttune.selfevolve.toolgraph.user_fault_reason`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from agenttune.events.schema import Event, EventKind, EventLog
from agenttune.selfevolve.toolgraph import call_key, episode_reward, user_fault_reason

SEVERITY = (
    "max_steps_exceeded",
    "tool_execution_error",
    "progress_stall",
    "redundant_read",
    "strategy_error",
)


@dataclass(frozen=True)
class Attribution:
    category: str
    domain: str
    task_id: str
    step: int
    log_id: str
    detail: str = ""


def attribute(
    log: EventLog, tool_kinds: Mapping[str, str], max_steps: int | None = None
) -> list[Attribution]:
    """Every symptom category found in one low-reward log, most severe first (empty when it succeeded or its user
    is to blame)."""
    reward = episode_reward(log)
    if reward > 0.5 or user_fault_reason(log):
        return []
    budget = max_steps or int(log.metadata.get("max_steps") or 50)
    actions = [
        e for e in log.events if e.actor == "agent" and e.kind in (EventKind.TOOL_CALL, EventKind.TEXT)
    ]
    domain, task_id = str(log.metadata.get("domain", "")), log.task_id

    def found(category: str, step: int, detail: str) -> Attribution:
        return Attribution(category, domain, task_id, step, log.id, detail)

    results = []
    if log.metadata.get("termination_reason") == "max_steps":
        results.append(
            found("max_steps_exceeded", actions[-1].step if actions else 0, f"budget {budget} spent")
        )
    errors = [e for e in log.events if e.kind == EventKind.TOOL_RESULT and e.payload.is_error]
    if errors:
        results.append(
            found(
                "tool_execution_error",
                errors[0].step,
                f"{errors[0].payload.name}: {errors[0].payload.content[:120]}",
            )
        )
    stall = _stall_start(actions, tool_kinds, start=int(0.3 * budget))
    if stall is not None:
        results.append(
            found("progress_stall", stall, "3+ consecutive read-only turns after 30% of the budget")
        )
    repeat = _first_repeated_read(actions, tool_kinds)
    if repeat is not None:
        results.append(
            found("redundant_read", repeat.step, f"{repeat.payload.name} repeated with the same arguments")
        )
    if not results:
        results.append(
            found("strategy_error", actions[-1].step if actions else 0, f"reward {reward:.2f}, no symptom")
        )
    return results


def attribute_failures(
    logs: Sequence[EventLog], tool_kinds: Mapping[str, Mapping[str, str]], per_task: int = 2
) -> list[Attribution]:
    """Attributions of many logs; ``tool_kinds`` maps each domain to its tools' read/write kinds. A task
    (domain, task id) keeps at most ``per_task`` categories, the most severe first."""
    by_task: dict[tuple[str, str], dict[str, Attribution]] = {}
    for log in logs:
        domain = str(log.metadata.get("domain", ""))
        for item in attribute(log, tool_kinds.get(domain, {})):
            by_task.setdefault((domain, log.task_id), {}).setdefault(item.category, item)
    results = []
    for found in by_task.values():
        results += sorted(found.values(), key=lambda a: SEVERITY.index(a.category))[:per_task]
    return results


def _is_read(event: Event, tool_kinds: Mapping[str, str]) -> bool:
    return event.kind == EventKind.TOOL_CALL and tool_kinds.get(event.payload.name) == "read"


def _stall_start(
    actions: Sequence[Event], tool_kinds: Mapping[str, str], start: int, run: int = 3
) -> int | None:
    streak: list[Event] = []
    for event in actions:
        if event.step >= start and _is_read(event, tool_kinds):
            streak.append(event)
            if len(streak) >= run:
                return streak[0].step
        else:
            streak = []
    return None


def _first_repeated_read(actions: Sequence[Event], tool_kinds: Mapping[str, str]) -> Event | None:
    seen: set[str] = set()
    for event in actions:
        if _is_read(event, tool_kinds):
            key = call_key(event)
            if key in seen:
                return event
            seen.add(key)
    return None
