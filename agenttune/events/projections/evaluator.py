"""Evaluator input: what a benchmark's metrics need from one episode, without the transcript.

``question`` is the first user message, ``final_answer`` the last assistant text, ``tool_calls`` every call in
order, ``retrieved_ids`` the ids that tool results list under ``metadata["retrieved_ids"]`` (in order, first
occurrence kept), and ``rewards`` the episode rewards by name.
"""

from __future__ import annotations

from typing import Any

from agenttune.events.schema import EventKind, EventLog

RETRIEVED_IDS_KEY = "retrieved_ids"


def evaluator_input(log: EventLog, *, branch: str = "main") -> dict[str, Any]:
    """The evaluator record of ``branch``'s path."""
    question, answer = "", ""
    calls: list[dict[str, Any]] = []
    retrieved: dict[str, None] = {}
    for event in log.path(branch):
        payload = event.payload
        if payload.kind == EventKind.USER and not question:
            question = payload.text
        elif payload.kind == EventKind.TEXT and event.actor == "agent":
            answer = payload.text
        elif payload.kind == EventKind.TOOL_CALL:
            calls.append({"call_id": payload.call_id, "name": payload.name, "arguments": payload.arguments})
        elif payload.kind == EventKind.TOOL_RESULT:
            retrieved.update(dict.fromkeys(str(i) for i in payload.metadata.get(RETRIEVED_IDS_KEY, [])))
    return {
        "log_id": log.id,
        "task_id": log.task_id,
        "source": log.source,
        "question": question,
        "final_answer": answer,
        "tool_calls": calls,
        "retrieved_ids": list(retrieved),
        "rewards": log.rewards("episode", branch),
    }
