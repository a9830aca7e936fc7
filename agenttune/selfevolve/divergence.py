"""Divergence-point DPO pairs: where a failed trajectory left the path a successful one of the same task took.

For each failed log (reward <= ``failure_reward``) and each successful log of the same task (reward >=
``success_reward``) the first *divergence* is found:

1. State signatures. Before every agent action a signature is taken of the conversation so far: the last
   entity id used in a call (an ``*_id``/``*_ids``/``*_number`` argument), the known fields (``key=value``
   of every call argument and the top-level keys of JSON tool results), the last tool called, the kind of
   the last agent action, and the pending goal (the first 50 characters of the last user message). Two
   decision points match when all agree and the known fields overlap with Jaccard >= ``jaccard``. The
   first decision point of the failed log that matches one of the successful log where the two actions
   differ is the divergence.
2. Fallback: prefix alignment on (role, first 50 characters of content) of every event; the first
   differing position is the divergence when both events there are agent actions.

The pair's prompt is the failed log's conversation before the divergence, with the ToolGraph system prompt
used at inference; ``chosen`` is the successful action, ``rejected`` the failed one (a tool call rendered
as ``<tool_call>{"name": ..., "arguments": ...}</tool_call>``), TRL's conversational preference format.

Filters, in order, each counted in ``counts``: the chosen path erred (a tool error) before the
divergence; the rejected action is annotated correct in the failed log's reward info (a matching
``action_checks`` entry); chosen and rejected identical; near duplicates (difflib ratio >= ``near_duplicate``);
exact duplicate pairs; more than ``max_pairs_per_task`` for a task. Pairs are then split into train and
validation by a hash of (domain, task id), so no task is in both.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agenttune.events.schema import Event, EventKind, EventLog
from agenttune.selfevolve.toolgraph import entity_of

ACTION_KINDS = (EventKind.TOOL_CALL, EventKind.TEXT)


@dataclass
class DivergenceConfig:
    success_reward: float = 1.0  # logs at or above this are successes
    failure_reward: float = 0.5  # logs at or below this are failures
    jaccard: float = 0.4  # minimum overlap of known fields for two states to match
    near_duplicate: float = 0.9  # difflib ratio at or above which chosen and rejected count as the same
    max_pairs_per_task: int = 5
    validation_fraction: float = 0.2


@dataclass
class PairSet:
    train: list[dict[str, Any]]
    validation: list[dict[str, Any]]
    counts: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class _Signature:
    entity: str | None
    known: frozenset[str]
    last_tool: str | None
    last_action: str | None
    goal: str


def render_action(event: Event) -> str:
    """An agent action as assistant text; tool calls in ``<tool_call>`` tags."""
    if event.kind == EventKind.TOOL_CALL:
        body = json.dumps({"name": event.payload.name, "arguments": event.payload.arguments}, default=str)
        return f"<tool_call>{body}</tool_call>"
    return event.payload.text


def render_messages(events: Sequence[Event], planning_prompt: str | None = None) -> list[dict[str, str]]:
    """Chat messages of a conversation prefix; ``planning_prompt`` is appended to the system message
    unless it is already there (logs recorded with ToolGraphHarness carry it)."""
    messages = []
    for event in events:
        kind = event.kind
        if kind == EventKind.SYSTEM:
            text = event.payload.text
            if planning_prompt and planning_prompt not in text:
                text = f"{text}\n\n{planning_prompt}"
            messages.append({"role": "system", "content": text})
        elif kind == EventKind.USER:
            messages.append({"role": "user", "content": event.payload.text})
        elif kind in ACTION_KINDS:
            messages.append({"role": "assistant", "content": render_action(event)})
        elif kind == EventKind.TOOL_RESULT:
            messages.append({"role": "tool", "content": event.payload.content})
        elif kind == EventKind.ERROR:
            messages.append({"role": "user", "content": f"Error: {event.payload.message}"})
    return messages


def build_dpo_pairs(
    logs: Sequence[EventLog], planning_prompt: str | None = None, config: DivergenceConfig | None = None
) -> PairSet:
    """DPO pairs from a mixed set of logs (successes and failures of the same tasks)."""
    config = config or DivergenceConfig()
    counts: Counter[str] = Counter()
    by_task: dict[tuple[str, str], dict[str, list[EventLog]]] = {}
    for log in logs:
        reward = _reward(log)
        outcome = (
            "success"
            if reward >= config.success_reward
            else "failure"
            if reward <= config.failure_reward
            else None
        )
        if outcome is not None:
            counts[f"{outcome}_logs"] += 1
            by_task.setdefault((str(log.metadata.get("domain", "")), log.task_id), {}).setdefault(
                outcome, []
            ).append(log)

    rows_by_task: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for (domain, task_id), groups in by_task.items():
        seen: set[str] = set()
        for failed in groups.get("failure", []):
            for success in groups.get("success", []):
                found = _divergence(failed, success, config, counts)
                if found is None:
                    continue
                i, j = found
                counts["candidates"] += 1
                rejected, chosen = failed.events[i], success.events[j]
                if any(e.kind == EventKind.TOOL_RESULT and e.payload.is_error for e in success.events[:j]):
                    counts["dropped_chosen_erred_before"] += 1
                    continue
                if _annotated_correct(rejected, failed):
                    counts["dropped_rejected_correct"] += 1
                    continue
                chosen_text, rejected_text = render_action(chosen), render_action(rejected)
                if chosen_text == rejected_text:
                    counts["dropped_identical"] += 1
                    continue
                if difflib.SequenceMatcher(None, chosen_text, rejected_text).ratio() >= config.near_duplicate:
                    counts["dropped_near_duplicate"] += 1
                    continue
                prompt = render_messages(failed.events[:i], planning_prompt)
                key = json.dumps([prompt, chosen_text, rejected_text])
                if key in seen:
                    counts["dropped_duplicate_pair"] += 1
                    continue
                seen.add(key)
                rows = rows_by_task.setdefault((domain, task_id), [])
                if len(rows) >= config.max_pairs_per_task:
                    counts["dropped_task_cap"] += 1
                    continue
                rows.append(
                    {
                        "prompt": prompt,
                        "chosen": [{"role": "assistant", "content": chosen_text}],
                        "rejected": [{"role": "assistant", "content": rejected_text}],
                        "task_id": task_id,
                        "domain": domain,
                        "step": rejected.step,
                    }
                )
    train, validation = [], []
    for (domain, task_id), rows in sorted(rows_by_task.items()):
        digest = hashlib.sha256(f"{domain}/{task_id}".encode()).digest()
        (validation if digest[0] / 256 < config.validation_fraction else train).extend(rows)
    counts["kept"] = len(train) + len(validation)
    counts["train"], counts["validation"] = len(train), len(validation)
    return PairSet(train=train, validation=validation, counts=dict(counts))


def _reward(log: EventLog) -> float:
    return float(log.rewards().get("total", log.metadata.get("reward", 0.0)))


def _decision_points(log: EventLog) -> list[int]:
    return [i for i, e in enumerate(log.events) if e.actor == "agent" and e.kind in ACTION_KINDS]


def _signature(events: Sequence[Event]) -> _Signature:
    entity, known, last_tool, last_action, goal = None, set(), None, None, ""
    for event in events:
        if event.kind == EventKind.TOOL_CALL:
            last_tool = event.payload.name
            for key, value in event.payload.arguments.items():
                if entity_of(key):
                    entity = json.dumps(value, default=str)
                if isinstance(value, str | int | float | bool):
                    known.add(f"{key}={value}")
        elif event.kind == EventKind.TOOL_RESULT:
            try:
                parsed = json.loads(event.payload.content)
            except (json.JSONDecodeError, TypeError):
                parsed = None
            if isinstance(parsed, dict):
                known.update(parsed.keys())
        elif event.kind == EventKind.USER:
            goal = event.payload.text[:50]
        if event.actor == "agent" and event.kind in ACTION_KINDS:
            last_action = event.kind.value
    return _Signature(entity, frozenset(known), last_tool, last_action, goal)


def _matches(a: _Signature, b: _Signature, threshold: float) -> bool:
    if (a.entity, a.last_tool, a.last_action, a.goal) != (b.entity, b.last_tool, b.last_action, b.goal):
        return False
    union = a.known | b.known
    return not union or len(a.known & b.known) / len(union) >= threshold


def _divergence(
    failed: EventLog, success: EventLog, config: DivergenceConfig, counts: Counter[str]
) -> tuple[int, int] | None:
    """(index in failed, index in success) of the first divergence, or None."""
    success_points = [(j, _signature(success.events[:j])) for j in _decision_points(success)]
    for i in _decision_points(failed):
        state = _signature(failed.events[:i])
        for j, other in success_points:
            if _matches(state, other, config.jaccard) and render_action(failed.events[i]) != render_action(
                success.events[j]
            ):
                counts["signature_matches"] += 1
                return i, j
    keys_f = [_prefix_key(e) for e in failed.events]
    keys_s = [_prefix_key(e) for e in success.events]
    k = next((k for k, (a, b) in enumerate(zip(keys_f, keys_s, strict=False)) if a != b), None)
    actions = {EventKind.TOOL_CALL, EventKind.TEXT}
    if k is not None and failed.events[k].kind in actions and success.events[k].kind in actions:
        counts["prefix_fallbacks"] += 1
        return k, k
    counts["no_divergence"] += 1
    return None


def _prefix_key(event: Event) -> tuple[str, str]:
    if event.kind in ACTION_KINDS:
        return (event.actor, render_action(event)[:50])
    content = getattr(event.payload, "text", None) or getattr(event.payload, "content", None) or ""
    return (event.actor, str(content)[:50])


def _annotated_correct(action: Event, log: EventLog) -> bool:
    """Whether tau2's action checks of ``log`` mark this tool call as a matched gold action."""
    if action.kind != EventKind.TOOL_CALL:
        return False
    info = next(
        (
            e.payload.info
            for e in reversed(log.events)
            if e.kind == EventKind.REWARD and e.payload.scope == "episode"
        ),
        {},
    )
    for check in info.get("action_checks") or []:
        gold = check.get("action", {})
        if not check.get("action_match") or gold.get("name") != action.payload.name:
            continue
        keys = gold.get("compare_args") or list(gold.get("arguments", {}))
        if all(action.payload.arguments.get(k) == gold.get("arguments", {}).get(k) for k in keys):
            return True
    return False
