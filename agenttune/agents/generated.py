"""The events of one generation: reasoning, text and tool calls in text order, plus parser errors.

In a full log each generated event gets the token span of the characters it covers (a token belongs to the
segment its first character falls in, so the spans partition the completion) and the logprobs of those tokens.
The sampled stop token is not part of any segment: its span and logprob go to the turn's TURN_COMPLETE, which the
events projections count as generated.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from typing import Any

from agenttune.engines.base import Generation
from agenttune.engines.tool_calls import Segment
from agenttune.events.schema import (
    ErrorPayload,
    Event,
    ReasoningPayload,
    TextPayload,
    ToolCallPayload,
)


@dataclass
class TurnEvents:
    generated: list[Event]  # REASONING, TEXT, TOOL_CALL (actor agent)
    errors: list[Event]  # ERROR, source "parser"
    stop_span: tuple[int, int] | None = None  # the sampled stop token, full tier only
    stop_logprobs: list[float] | None = None


def _payload(segment: Segment, call_id: str):
    if segment.kind == "tool_call":
        return ToolCallPayload(call_id=call_id, name=segment.name, arguments=segment.arguments)
    if segment.kind == "reasoning":
        return ReasoningPayload(text=segment.value)
    return TextPayload(text=segment.value)


def _first_token_at(tokenizer: Any, ids: list[int], char: int) -> int:
    """The first token whose characters begin at or after ``char`` in the decoded text (binary search)."""
    return bisect_left(
        range(len(ids)), char, key=lambda i: len(tokenizer.decode(ids[:i], skip_special_tokens=False))
    )


def turn_events(
    generation: Generation, step: int, call_ids: list[str], offset: int | None = None, tokenizer: Any = None
) -> TurnEvents:
    """Events for ``generation``; with ``offset`` (where its completion starts in the log's token_ids) and the
    tokenizer, generated events carry spans and logprobs."""
    segments = generation.parsed.segments or [Segment("text", 0, len(generation.text))]
    calls = iter(call_ids)
    payloads = [_payload(s, next(calls) if s.kind == "tool_call" else "") for s in segments]
    errors = [
        Event(payload=ErrorPayload(source="parser", message=e.message, raw=e.raw), actor="system", step=step)
        for e in generation.parse_errors
    ]
    if offset is None:
        return TurnEvents([Event(payload=p, step=step) for p in payloads], errors)

    ids, logprobs = generation.completion_ids, generation.logprobs
    stopped = generation.finish_reason == "stop"
    n_text = len(ids) - 1 if stopped else len(ids)
    bounds = [0, *(_first_token_at(tokenizer, ids[:n_text], s.start) for s in segments[1:]), n_text]
    if n_text == 0:  # only a stop token: it becomes the (empty) text event's token
        bounds[-1], stopped = len(ids), False
    generated = []
    for payload, start, end in zip(payloads, bounds, bounds[1:], strict=False):
        span = (offset + start, offset + end) if end > start else None
        generated.append(
            Event(payload=payload, step=step, span=span, logprobs=logprobs[start:end] if span else None)
        )
    if not stopped:
        return TurnEvents(generated, errors)
    return TurnEvents(generated, errors, (offset + n_text, offset + len(ids)), logprobs[n_text:])
