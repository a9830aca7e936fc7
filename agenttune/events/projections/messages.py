"""Events to chat messages, the shared first step of the SFT, DPO and verl projections.

One branch path of a log becomes a list of :class:`RenderedMessage`: the message in the format chat templates
take (``role``, ``content``, assistant ``tool_calls`` as ``{"type": "function", "function": {"name", "arguments"}}``,
tool results as ``role="tool"``) plus the events that make it up, in render order, so projections can weight
each part.

Rules: SYSTEM and USER map to their roles; TOOL_RESULT to a ``tool`` message; OBSERVATION to a ``user`` message
(templates have no observation role). TEXT, REASONING and TOOL_CALL events join one assistant message until a
non-assistant event, a TURN_COMPLETE, or content after a tool call (templates render content before tool
calls) starts a new one. Reasoning is rendered inline as ``<think>\\n...\\n</think>`` (templates without a
reasoning field drop it otherwise); content parts are joined by a newline. REWARD, MEMORY_OP and ERROR events
are not shown to the policy and render nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agenttune.events.schema import EventKind, EventLog

THINK_OPEN, THINK_CLOSE = "<think>\n", "\n</think>"


@dataclass
class RenderedMessage:
    """A chat message and the ``(kind, event index)`` of each event in it, in render order."""

    role: str
    parts: list[tuple[EventKind, int]] = field(default_factory=list)
    content: list[str] = field(default_factory=list)
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    name: str | None = None

    def message(self, upto: int | None = None) -> dict[str, Any]:
        """The chat-template message, or only its first ``upto`` parts (for prefix rendering)."""
        parts = self.parts if upto is None else self.parts[:upto]
        n_content = sum(1 for kind, _ in parts if kind != EventKind.TOOL_CALL)
        n_calls = len(parts) - n_content
        message: dict[str, Any] = {"role": self.role, "content": "\n".join(self.content[:n_content])}
        if self.tool_calls[:n_calls]:
            message["tool_calls"] = self.tool_calls[:n_calls]
        if self.name is not None:
            message["name"] = self.name
        return message


def render_part(kind: EventKind, text: str) -> str:
    """How one content part appears inside an assistant message."""
    return f"{THINK_OPEN}{text}{THINK_CLOSE}" if kind == EventKind.REASONING else text


def rendered_messages(log: EventLog, branch: str = "main") -> list[RenderedMessage]:
    """The messages of ``branch``'s path (see the module docstring for the rules)."""
    messages: list[RenderedMessage] = []
    open_assistant: RenderedMessage | None = None
    for index in log.lineage(branch):
        payload = log.events[index].payload
        kind = payload.kind
        if kind in (EventKind.TEXT, EventKind.REASONING):
            if open_assistant is None or open_assistant.tool_calls:
                open_assistant = RenderedMessage("assistant")
                messages.append(open_assistant)
            open_assistant.parts.append((kind, index))
            open_assistant.content.append(render_part(kind, payload.text))
            continue
        if kind == EventKind.TOOL_CALL:
            if open_assistant is None:
                open_assistant = RenderedMessage("assistant")
                messages.append(open_assistant)
            open_assistant.parts.append((kind, index))
            call = {"name": payload.name, "arguments": payload.arguments}
            open_assistant.tool_calls.append({"type": "function", "function": call})
            continue
        if kind in (EventKind.REWARD, EventKind.MEMORY_OP, EventKind.ERROR):
            continue
        open_assistant = None
        if kind == EventKind.SYSTEM:
            messages.append(RenderedMessage("system", [(kind, index)], [payload.text]))
        elif kind == EventKind.USER:
            messages.append(RenderedMessage("user", [(kind, index)], [payload.text]))
        elif kind == EventKind.TOOL_RESULT:
            messages.append(RenderedMessage("tool", [(kind, index)], [payload.content], name=payload.name))
        elif kind == EventKind.OBSERVATION:
            messages.append(RenderedMessage("user", [(kind, index)], [payload.content]))
    return messages


def chat_messages(log: EventLog, branch: str = "main") -> list[dict[str, Any]]:
    """Plain chat-template messages of ``branch``'s path."""
    return [message.message() for message in rendered_messages(log, branch)]
