"""Divergence-point DPO pairs: where a failed trajectory left the path a successful one of the same task took.

For each failed log (reward <= ``failure_reward``) and each successful log of the same task (reward >=
``success_reward``) the first *divergence* is found. A failure whose simulated user is to blame
(:func:`~agenttune.selfevolve.toolgraph.user_fault_reason`) is left out and counted (``dropped_user_fault``):
the agent's actions there were not what failed.

1. State signatures. Before every agent action a signature is taken of the conversation so far: the last
   entity id used in a call (an ``*_id``/``*_ids``/``*_number`` argument), the known fields (``key=value``
   of every call argument and the top-level keys of JSON tool results), the last tool called, the kind of
   the last agent action, and the pending goal (the first 50 characters of the last user message). Two
   decision points match when all agree and the known fields overlap with Jaccard >= ``jaccard``. The
   first decision point of the failed log that matches one of the successful log where the two actions
   differ is the divergence.
2. Fallback: prefix alignment on (role, first 50 characters of content) of every event; the first
   differing position is the divergence when both events there are agent actions.

Pairs are rendered by the one events-to-messages renderer (:mod:`agenttune.events.projections.messages`), so a
pair's prompt is exactly the conversation the policy was sent for the failed turn: the failed log's messages
before the assistant turn holding the divergence, with the ToolGraph planning prompt used at inference appended
to the system message when the log does not carry it already. ``chosen`` and ``rejected`` are the two logs'
assistant turns at the divergence, in TRL's conversational preference format, with the log's ``tools``. Actions
are compared as the model writes them (:func:`agenttune.engines.tool_calls.assistant_text`).

Filters, in order, each counted in ``counts``: the chosen path erred (a tool error) before the
divergence; the rejected action is correct by the benchmark's own check (``is_correct``, e.g. tau2's gold action
checks); chosen and rejected identical; near duplicates (difflib ratio >= ``near_duplicate``);
exact duplicate pairs; more than ``max_pairs_per_task`` for a task. Pairs are then split into train and
validation by a hash of (domain, task id), so no task is in both.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agenttune.engines.tool_calls import assistant_text, format_tool_call
from agenttune.events.projections.messages import ASSISTANT_KINDS, chat_messages, render_events
from agenttune.events.schema import Event, EventKind, EventLog
from agenttune.selfevolve.toolgraph import entity_of, episode_reward, user_fault_reason

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


def action_text(event: Event) -> str:
    """One agent action as the model writes it: a ``<tool_call>`` block, or the text."""
    if event.kind == EventKind.TOOL_CALL:
        return format_tool_call(event.payload.name, event.payload.arguments)
    return event.payload.text


def turn_at(log: EventLog, index: int) -> tuple[int, dict[str, Any]]:
    """Where the assistant message holding event ``index`` starts, and that message."""
    step = log.events[index].step
    indexed = [
        (k, e)
        for k, e in enumerate(log.events)
        if e.step == step and e.actor == "agent" and e.kind in ASSISTANT_KINDS
    ]
    message = next(m for m in render_events(indexed) if any(k == index for _, k in m.parts))
    return message.parts[0][1], message.message()


def prompt_before(log: EventLog, start: int, planning_prompt: str | None) -> list[dict[str, Any]]:
    """The conversation the policy was sent before event ``start``, with ``planning_prompt`` in the system message."""
    messages = chat_messages(log, upto=start)
    if planning_prompt and messages and messages[0]["role"] == "system":
        if planning_prompt not in messages[0]["content"]:
            messages[0] = {**messages[0], "content": f"{messages[0]['content']}\n\n{planning_prompt}"}
    return messages


def build_dpo_pairs(
    logs: Sequence[EventLog],
    planning_prompt: str | None = None,
    config: DivergenceConfig | None = None,
    is_correct: Callable[[Event, EventLog], bool] | None = None,
) -> PairSet:
    """DPO pairs from a mixed set of logs (successes and failures of the same tasks); ``is_correct(action, log)``
    says whether a failed log's action was right after all (such pairs are dropped)."""
    config = config or DivergenceConfig()
    counts: Counter[str] = Counter()
    by_task: dict[tuple[str, str], dict[str, list[EventLog]]] = {}
    for log in logs:
        reward = episode_reward(log)
        outcome = (
            "success"
            if reward >= config.success_reward
            else "failure"
            if reward <= config.failure_reward
            else None
        )
        if outcome == "failure" and user_fault_reason(log):
            counts["dropped_user_fault"] += 1
        elif outcome is not None:
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
                rejected = failed.events[i]
                if any(e.kind == EventKind.TOOL_RESULT and e.payload.is_error for e in success.events[:j]):
                    counts["dropped_chosen_erred_before"] += 1
                    continue
                if is_correct is not None and is_correct(rejected, failed):
                    counts["dropped_rejected_correct"] += 1
                    continue
                start, rejected_turn = turn_at(failed, i)
                chosen_turn = turn_at(success, j)[1]
                chosen_text, rejected_text = assistant_text(chosen_turn), assistant_text(rejected_turn)
                if chosen_text == rejected_text:
                    counts["dropped_identical"] += 1
                    continue
                if difflib.SequenceMatcher(None, chosen_text, rejected_text).ratio() >= config.near_duplicate:
                    counts["dropped_near_duplicate"] += 1
                    continue
                prompt = prompt_before(failed, start, planning_prompt)
                key = json.dumps([prompt, chosen_text, rejected_text], default=str)
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
                        "chosen": [chosen_turn],
                        "rejected": [rejected_turn],
                        "tools": failed.tools,
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
            except (ValueError, TypeError, RecursionError):  # not JSON, over 4,300 digits, too deep
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
            if _matches(state, other, config.jaccard) and action_text(failed.events[i]) != action_text(
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
        return (event.actor, action_text(event)[:50])
    content = getattr(event.payload, "text", None) or getattr(event.payload, "content", None) or ""
    return (event.actor, str(content)[:50])
