"""Turn targets: each assistant turn of a log with the conversation before it (prompts for learning a turn)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agenttune.events.projections.messages import chat_messages
from agenttune.events.schema import EventLog


def _cut(message: dict[str, Any], max_chars: int) -> dict[str, Any]:
    return {**message, "content": (message.get("content") or "")[:max_chars]}


def turn_targets(
    logs: Sequence[EventLog], max_prompt_turns: int = 4, max_chars: int = 600
) -> list[tuple[list[dict], dict]]:
    """``(prompt messages, assistant turn)`` for every assistant turn that has a user or system message before it.

    The prompt is the opening system/user messages and the last ``max_prompt_turns`` messages before the turn,
    each cut to ``max_chars`` characters.
    """
    targets = []
    for log in logs:
        messages = [_cut(m, max_chars) for m in chat_messages(log)]
        opening = [m for m in messages[:2] if m["role"] in ("system", "user")]
        for index, message in enumerate(messages):
            if message["role"] != "assistant" or index < len(opening):
                continue
            recent = messages[max(len(opening), index - max_prompt_turns) : index]
            targets.append((opening + recent, message))
    if not targets:
        raise ValueError("the logs hold no assistant turn after an opening user or system message")
    return targets
