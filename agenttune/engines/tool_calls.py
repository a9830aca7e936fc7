"""Parsing assistant text into reasoning, text and tool calls (ChatML/Qwen ``<tool_call>{json}</tool_call>``).

:func:`parse_assistant_text` never raises, whatever the string. It splits the raw generated text into ordered
:class:`Segment` pieces that cover the text exactly (so token spans can be derived from character offsets), and
reports each malformed call as a :class:`ParseError`; the malformed raw text stays in the message as plain text,
so nothing the model wrote is lost. A call is malformed when its body is not JSON, is not an object, lacks a
string ``name``, has non-object ``arguments``, or when a ``<tool_call>`` tag is never closed. A missing
``arguments`` field means no arguments.

A call is also malformed when its JSON holds what an EventLog cannot store faithfully or a tool should not get:
``NaN``/``Infinity`` (or a number too large for a float, such as ``1e999``), an integer of more than 4,300
digits (Python's conversion limit), nesting deeper than :data:`MAX_DEPTH`, or a lone UTF-16 surrogate such as
``"\ud83d"`` (not encodable as UTF-8). Lone surrogates in the text itself are replaced by U+FFFD (one character
for one, so offsets hold).

A leading ``<think>...</think>`` block (Qwen3, DeepSeek-R1 style) becomes a reasoning segment.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from agenttune.events.projections.messages import render_part
from agenttune.events.schema import SURROGATE, EventKind

OPEN, CLOSE = "<tool_call>", "</tool_call>"
THINK = re.compile(r"\s*<think>(.*?)</think>", re.DOTALL)
MAX_DEPTH = 32  # nesting of a call's JSON; deeper structures would overflow recursive encoders and copies


@dataclass(frozen=True)
class ParseError:
    """A malformed tool call: what was wrong and the raw text (tags included)."""

    message: str
    raw: str


@dataclass(frozen=True)
class Segment:
    """``text[start:end]`` of the raw generation, read as one kind of content."""

    kind: Literal["reasoning", "text", "tool_call"]
    start: int
    end: int
    value: str = ""  # the stripped text for reasoning/text segments
    name: str = ""  # tool_call only
    arguments: dict[str, Any] = field(default_factory=dict)  # tool_call only


@dataclass(frozen=True)
class ParsedMessage:
    segments: list[Segment]
    errors: list[ParseError]

    @property
    def content(self) -> str:
        """The text the assistant wrote outside reasoning and well-formed tool calls."""
        return "\n".join(s.value for s in self.segments if s.kind == "text" and s.value).strip()

    @property
    def reasoning(self) -> str:
        return "\n".join(s.value for s in self.segments if s.kind == "reasoning")

    @property
    def tool_calls(self) -> list[Segment]:
        return [s for s in self.segments if s.kind == "tool_call"]

    def to_message(self, call_ids: list[str] | None = None) -> dict[str, Any]:
        """The assistant chat message (OpenAI shape, arguments as objects); ids default to ``call_0``, ...

        It is the message :mod:`agenttune.events.projections.messages` renders from this turn's events: reasoning
        inline in ``<think>`` tags before the text, parts joined by a newline.
        """
        calls = self.tool_calls
        call_ids = call_ids if call_ids is not None else [f"call_{i}" for i in range(len(calls))]
        parts = [render_part(EventKind.REASONING, s.value) for s in self.segments if s.kind == "reasoning"]
        content = "\n".join(part for part in [*parts, self.content] if part)
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if calls:
            message["tool_calls"] = [
                {"id": call_id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for call_id, c in zip(call_ids, calls, strict=True)
            ]
        return message


def assistant_text(message: dict[str, Any]) -> str:
    """An assistant chat message as the model writes it: its content, then one ``<tool_call>`` block per call
    (``tool_calls`` in OpenAI shape, or bare ``{"name", "arguments"}``; arguments as objects or JSON text)."""
    calls = [call.get("function", call) for call in message.get("tool_calls") or []]
    blocks = [format_tool_call(c["name"], c.get("arguments") or {}) for c in calls]
    return "\n".join(part for part in [message.get("content") or "", *blocks] if part)


def format_tool_call(name: str, arguments: dict[str, Any] | str) -> str:
    """A ``<tool_call>`` block in the Qwen layout; ``arguments`` is an object or its raw JSON text (kept as is)."""
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return f'{OPEN}\n{{"name": {json.dumps(name)}, "arguments": {raw or "{}"}}}\n{CLOSE}'


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def _unstorable(data: Any) -> str | None:
    """Why parsed JSON cannot become a tool call (see the module docstring), or None; iterative, so any depth."""
    pending = [(data, 1)]
    while pending:
        value, depth = pending.pop()
        if depth > MAX_DEPTH:
            return f"it nests deeper than {MAX_DEPTH} levels"
        if isinstance(value, float) and not math.isfinite(value):
            return f"the number {value} is not finite"
        if isinstance(value, str) and SURROGATE.search(value):
            return f"the string {value!r:.40} holds a lone UTF-16 surrogate"
        if isinstance(value, dict):
            pending += [(key, depth) for key in value] + [(item, depth + 1) for item in value.values()]
        elif isinstance(value, list):
            pending += [(item, depth + 1) for item in value]
    return None


def _read_call(body: str) -> tuple[str, dict[str, Any]] | str:
    """``(name, arguments)`` of a call body, or a message saying why it is malformed."""
    try:
        data = json.loads(body, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as error:  # JSONDecodeError, NaN/Infinity, over 4,300 digits, deep
        return f"tool call is not valid JSON: {error}"
    problem = _unstorable(data)
    if problem:
        return f"tool call cannot be used: {problem}"
    if not isinstance(data, dict):
        return f"tool call must be a JSON object, got {type(data).__name__}"
    name = data.get("name")
    if not isinstance(name, str) or not name:
        return "tool call has no string 'name'"
    arguments = data.get("arguments", {})
    if not isinstance(arguments, dict):
        return f"tool call 'arguments' must be a JSON object, got {type(arguments).__name__}"
    return name, arguments


def parse_assistant_text(text: str) -> ParsedMessage:
    """Split ``text`` into segments covering it exactly, plus the parse errors of malformed calls."""
    text = SURROGATE.sub("\ufffd", text)
    pieces: list[Segment] = []
    errors: list[ParseError] = []
    position = 0
    think = THINK.match(text)
    if think:
        pieces.append(Segment("reasoning", 0, think.end(), value=think.group(1).strip()))
        position = think.end()
    while position < len(text):
        start = text.find(OPEN, position)
        if start < 0:
            pieces.append(Segment("text", position, len(text)))
            break
        if start > position:
            pieces.append(Segment("text", position, start))
        close = text.find(CLOSE, start + len(OPEN))
        if close < 0:
            errors.append(ParseError("unclosed <tool_call> tag", text[start:]))
            pieces.append(Segment("text", start, len(text)))
            break
        end = close + len(CLOSE)
        call = _read_call(text[start + len(OPEN) : close])
        if isinstance(call, str):
            errors.append(ParseError(call, text[start:end]))
            pieces.append(Segment("text", start, end))
        else:
            pieces.append(Segment("tool_call", start, end, name=call[0], arguments=call[1]))
        position = end
    return ParsedMessage(_merge_text(text, pieces), errors)


def _merge_text(text: str, pieces: list[Segment]) -> list[Segment]:
    """Join adjacent text pieces and fold whitespace-only text into a neighbour, keeping exact coverage."""

    def blank(segment: Segment) -> bool:
        return segment.kind == "text" and not text[segment.start : segment.end].strip()

    merged: list[Segment] = []
    for piece in pieces:
        if merged and (blank(piece) or (piece.kind == "text" and merged[-1].kind == "text")):
            merged[-1] = replace(merged[-1], end=piece.end)
        elif merged and blank(merged[-1]):
            merged[-1] = replace(piece, start=merged[-1].start)
        else:
            merged.append(piece)
    return [replace(s, value=text[s.start : s.end].strip()) if s.kind == "text" else s for s in merged]
