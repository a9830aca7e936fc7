"""What the policy sees of environment-side events, as chat messages.

The rules match :mod:`agenttune.events.projections.messages`, so a light log re-rendered for SFT shows the same
conversation the policy saw: SYSTEM and USER keep their roles, TOOL_RESULT becomes a ``tool`` message and
OBSERVATION a ``user`` message; bookkeeping events (REWARD, MEMORY_OP, ERROR, TURN_COMPLETE) show nothing.
"""

from __future__ import annotations

from typing import Any

from agenttune.events.schema import Event, EventKind

Message = dict[str, Any]


def event_message(event: Event) -> Message | None:
    """The chat message an environment-side event shows the policy, or None."""
    payload = event.payload
    if payload.kind == EventKind.SYSTEM:
        return {"role": "system", "content": payload.text}
    if payload.kind == EventKind.USER:
        return {"role": "user", "content": payload.text}
    if payload.kind == EventKind.TOOL_RESULT:
        return {
            "role": "tool",
            "tool_call_id": payload.call_id,
            "name": payload.name,
            "content": payload.content,
        }
    if payload.kind == EventKind.OBSERVATION:
        return {"role": "user", "content": payload.content}
    return None


def events_to_messages(events: list[Event]) -> list[Message]:
    return [m for m in map(event_message, events) if m is not None]
