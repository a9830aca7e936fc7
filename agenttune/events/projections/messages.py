"""Events to chat messages: the one renderer, used by the strategies (what the policy is sent), every projection
(SFT, DPO, verl) and the divergence-point pairs of self-evolution.

One branch path of a log (or a prefix of it) becomes a list of :class:`RenderedMessage`: the message in the format
chat templates take plus the events that make it up, in render order, so projections can weight each part.
Environment-side events map one to one (:func:`event_message`), which is how a strategy extends its conversation
with a turn's observations; the assistant turns the policy generated are rebuilt from their events in the shape
the parser gives them (:meth:`agenttune.engines.tool_calls.ParsedMessage.to_message`), so a log re-rendered up to
any turn is the conversation the policy was sent for that turn.

Rules: SYSTEM and USER map to their roles; TOOL_RESULT to a ``tool`` message (``tool_call_id``, ``name``,
``content``); OBSERVATION to a ``user`` message (templates have no observation role). TEXT, REASONING and
TOOL_CALL events join one assistant message until a non-assistant event, a TURN_COMPLETE, or content after a
tool call (templates render content before tool calls) starts a new one; tool calls are
``{"id", "type": "function", "function": {"name", "arguments"}}``. Reasoning is rendered inline as
``<think>\\n...\\n</think>`` (templates without a reasoning field drop it otherwise); content parts are joined by
a newline. REWARD, MEMORY_OP and ERROR events are not shown to the policy and render nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agenttune.events.schema import Event, EventKind, EventLog

THINK_OPEN, THINK_CLOSE = "<think>\n", "\n</think>"
ASSISTANT_KINDS = (EventKind.TEXT, EventKind.REASONING, EventKind.TOOL_CALL)
HIDDEN_KINDS = (EventKind.REWARD, EventKind.MEMORY_OP, EventKind.ERROR)

Message = dict[str, Any]


@dataclass
class RenderedMessage:
    """A chat message and the ``(kind, event index)`` of each event in it, in render order."""

    role: str
    parts: list[tuple[EventKind, int]] = field(default_factory=list)
    content: list[str] = field(default_factory=list)
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)  # tool messages: tool_call_id and name

    def message(self, upto: int | None = None) -> Message:
        """The chat-template message, or only its first ``upto`` parts (for prefix rendering)."""
        parts = self.parts if upto is None else self.parts[:upto]
        n_content = sum(1 for kind, _ in parts if kind != EventKind.TOOL_CALL)
        n_calls = len(parts) - n_content
        message: Message = {"role": self.role, "content": "\n".join(self.content[:n_content])}
        if self.tool_calls[:n_calls]:
            message["tool_calls"] = self.tool_calls[:n_calls]
        return {**message, **self.extra}


def render_part(kind: EventKind, text: str) -> str:
    """How one content part appears inside an assistant message."""
    return f"{THINK_OPEN}{text}{THINK_CLOSE}" if kind == EventKind.REASONING else text


def event_message(event: Event) -> Message | None:
    """The chat message an environment-side event (SYSTEM, USER, TOOL_RESULT, OBSERVATION) shows, or None."""
    rendered = _environment_message(event, 0)
    return None if rendered is None else rendered.message()


def _environment_message(event: Event, index: int) -> RenderedMessage | None:
    payload = event.payload
    kind = payload.kind
    if kind in (EventKind.SYSTEM, EventKind.USER):
        return RenderedMessage(kind.value, [(kind, index)], [payload.text])
    if kind == EventKind.TOOL_RESULT:
        extra = {"tool_call_id": payload.call_id, "name": payload.name}
        return RenderedMessage("tool", [(kind, index)], [payload.content], extra=extra)
    if kind == EventKind.OBSERVATION:
        return RenderedMessage("user", [(kind, index)], [payload.content])
    return None


def render_events(indexed: Iterable[tuple[int, Event]]) -> list[RenderedMessage]:
    """The messages of ``(index, event)`` pairs in order (see the module docstring for the rules)."""
    messages: list[RenderedMessage] = []
    open_assistant: RenderedMessage | None = None
    for index, event in indexed:
        payload = event.payload
        kind = payload.kind
        if kind in ASSISTANT_KINDS:
            starts_new = open_assistant is None or (kind != EventKind.TOOL_CALL and open_assistant.tool_calls)
            if starts_new:
                open_assistant = RenderedMessage("assistant")
                messages.append(open_assistant)
            open_assistant.parts.append((kind, index))
            if kind == EventKind.TOOL_CALL:
                call = {"name": payload.name, "arguments": payload.arguments}
                open_assistant.tool_calls.append(
                    {"id": payload.call_id, "type": "function", "function": call}
                )
            else:
                open_assistant.content.append(render_part(kind, payload.text))
            continue
        if kind in HIDDEN_KINDS:
            continue
        open_assistant = None
        rendered = _environment_message(event, index)
        if rendered is not None:
            messages.append(rendered)
    return messages


def rendered_messages(log: EventLog, branch: str = "main", upto: int | None = None) -> list[RenderedMessage]:
    """The messages of ``branch``'s path; with ``upto``, of its events before event index ``upto`` only."""
    indices = [i for i in log.lineage(branch) if upto is None or i < upto]
    return render_events((i, log.events[i]) for i in indices)


def chat_messages(log: EventLog, branch: str = "main", upto: int | None = None) -> list[Message]:
    """Plain chat-template messages of ``branch``'s path (before event index ``upto`` when given)."""
    return [message.message() for message in rendered_messages(log, branch, upto)]


def events_to_messages(events: Sequence[Event]) -> list[Message]:
    """Chat messages of a list of events (an opening, a turn's observations, a conversation prefix)."""
    return [message.message() for message in render_events(enumerate(events))]


def agent_turns(log: EventLog, branch: str = "main") -> list[Message]:
    """The policy's turns as assistant messages, each with the raw text of the tool calls of its step that did not
    parse (ERROR events from the parser) appended to its content: what a format reward reads, the final answer
    last."""
    malformed: dict[int, list[str]] = {}
    for index in log.lineage(branch):
        event = log.events[index]
        if event.kind == EventKind.ERROR and event.payload.source == "parser":
            malformed.setdefault(event.step, []).append(event.payload.raw)
    turns = []
    for rendered in rendered_messages(log, branch):
        if rendered.role != "assistant":
            continue
        message = rendered.message()
        steps = {log.events[index].step for _, index in rendered.parts}
        raw = [text for step in sorted(steps) for text in malformed.pop(step, [])]
        message["content"] = "\n".join(part for part in [message["content"], *raw] if part)
        turns.append(message)
    return [*({"role": "assistant", "content": "\n".join(raw)} for raw in malformed.values()), *turns]
