"""One row per episode, what the tracker's episode tables show beside the curves (``<phase>/trajectories``).

A row holds the task id, the split (a training rollout: the step of the policy that played it), the episode's reward ``total`` and each reward component (``reward/<name>``,
from its REWARD events), the benchmark's per-episode scores when an evaluation has them (``score/<name>``), the
number of turns, tool calls and errors, why the episode ended (``ended_because``: the harness's termination) and
the transcript: the conversation as the policy saw it (:func:`agenttune.events.projections.messages.chat_messages`),
one message a paragraph, followed by the episode's errors.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from agenttune.events.projections.messages import chat_messages
from agenttune.events.schema import EventKind, EventLog


def transcript(log: EventLog) -> str:
    """The episode as text: each message as ``role: content`` (tool calls as ``-> name(arguments)``), then one
    ``error (source): message`` line per ERROR event."""
    paragraphs = []
    for message in chat_messages(log):
        role = message["role"] if message["role"] != "tool" else f"tool {message.get('name', '')}".strip()
        lines = [f"{role}: {message['content']}"] if message["content"] else []
        for call in message.get("tool_calls", []):
            arguments = json.dumps(call["function"]["arguments"], ensure_ascii=False, default=str)
            lines.append(f"{role}: -> {call['function']['name']}({arguments})")
        paragraphs.append("\n".join(lines) or f"{role}:")
    errors = [e.payload for e in log.events if e.kind == EventKind.ERROR]
    paragraphs += [f"error ({error.source}): {error.message}" for error in errors]
    return "\n\n".join(paragraphs)


def episode_row(log: EventLog, split: str, scores: Mapping[str, float] | None = None) -> dict[str, Any]:
    """The table row of one episode (see the module docstring); ``scores`` are the benchmark's for it."""
    rewards = log.rewards("episode")
    row: dict[str, Any] = {"task_id": log.task_id, "split": split}
    if "policy" in log.metadata:  # a training rollout: the step of the policy that played it (step-<N>.jsonl)
        row["policy_step"] = log.metadata["policy"]["step"]
    row["reward"] = rewards.get("total")
    row |= {f"reward/{name}": value for name, value in rewards.items() if name != "total"}
    row |= {f"score/{name}": value for name, value in (scores or {}).items()}
    row |= {
        "turns": int(log.metadata.get("turns", 0)),
        "tool_calls": sum(e.kind == EventKind.TOOL_CALL for e in log.events),
        "errors": sum(e.kind == EventKind.ERROR for e in log.events),
        "ended_because": str(log.metadata.get("termination", "")),
        "transcript": transcript(log),
    }
    return row


def episode_rows(
    logs: Sequence[EventLog], split: str, scores: Sequence[Mapping[str, float]] | None = None
) -> tuple[list[str], list[list[Any]]]:
    """The columns (the union over rows, in first-seen order) and the rows of ``logs``; a value a row lacks is
    None."""
    rows = [
        episode_row(log, split, None if scores is None else scores[index]) for index, log in enumerate(logs)
    ]
    columns = list(dict.fromkeys(key for row in rows for key in row))
    return columns, [[row.get(column) for column in columns] for row in rows]
