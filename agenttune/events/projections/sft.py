"""SFT rows: the conversation rendered by the model's chat template, with one loss weight per token.

A row is ``{"input_ids": [...], "weights": [...], "log_id": str}``. Weights come from the segment each token
belongs to, by kind (:data:`DEFAULT_WEIGHTS`, overridable with the config keys ``text``, ``reasoning``,
``tool_call``, ``tool_result``, ``observation``); system and user text, template headers and anything else
weigh 0. The end-of-message tokens of an assistant message (``<|im_end|>`` in ChatML) take the weight of its
last part, so the model learns where a reply or a tool call ends. ``turn_start`` is a floor on the weight of
each assistant turn's first token, the one where the model chooses between a tool call and a text reply: in a
long agent episode that choice is a handful of tokens among thousands, so a student can fit the rows and still
never make it (0 leaves it at its segment's weight).

Light logs are rendered with ``tokenizer.apply_chat_template`` (tools from ``EventLog.tools``). Segment
boundaries are found in characters by rendering message prefixes (and, inside an assistant message, prefixes
of its parts) and taking the common prefix with the full rendering, which also handles templates that close a
message differently when it is last (ChatML closes consecutive tool results once). Tokens take the weight of
the segment their first character falls in (the tokenizer must be a fast one, for offsets). If the template
rewrites earlier turns so that a prefix no longer matches, the row fails loudly rather than mis-weighting.

Full logs use ``token_ids`` directly: a token inside an event's span takes that event's weight (a
TURN_COMPLETE span takes the weight of the generated event before it). The runtime does not span the turns
it renders for the environment, so a run of tool results (or observations) takes the tokens between the spans
around it, template wrapper and next assistant header included; other tokens outside spans weigh 0.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping
from typing import Any

from agenttune.events.kinds import GENERATED_KINDS
from agenttune.events.projections.messages import RenderedMessage, rendered_messages
from agenttune.events.schema import EventKind, EventLog

DEFAULT_WEIGHTS: dict[str, float] = {
    "text": 1.0,
    "reasoning": 1.0,
    "tool_call": 2.0,
    "tool_result": 0.0,
    "observation": 0.0,
    "turn_start": 0.0,
}


def segment_weights(weights: Mapping[str, float] | None = None) -> dict[str, float]:
    """Defaults updated with ``weights``; unknown keys are an error naming the allowed ones."""
    merged = dict(DEFAULT_WEIGHTS)
    for key, value in (weights or {}).items():
        if key not in DEFAULT_WEIGHTS:
            raise KeyError(f"unknown segment weight {key!r}; use {sorted(DEFAULT_WEIGHTS)}")
        merged[key] = float(value)
    return merged


def _kind_weight(kind: EventKind, weights: Mapping[str, float]) -> float:
    return weights.get(kind.value, 0.0)


def sft_row(
    log: EventLog,
    tokenizer: Any,
    weights: Mapping[str, float] | None = None,
    *,
    branch: str = "main",
    use_tokens: bool | None = None,
) -> dict[str, Any]:
    """One weighted SFT row from ``branch``'s path of ``log``.

    ``use_tokens`` picks the full-tier path (default: when the log is full); False renders content instead.
    """
    table = segment_weights(weights)
    if use_tokens is None:
        use_tokens = log.tier == "full"
    if use_tokens:
        log.require_full("sft_row(use_tokens=True)")
        input_ids, token_weights = _full_row(log, table, branch)
    else:
        input_ids, token_weights = _light_row(log, tokenizer, table, branch)
    return {"input_ids": input_ids, "weights": token_weights, "log_id": log.id}


def sft_rows(
    logs: Iterable[EventLog], tokenizer: Any, weights: Mapping[str, float] | None = None, **kwargs: Any
) -> list[dict[str, Any]]:
    """:func:`sft_row` for each log."""
    return [sft_row(log, tokenizer, weights, **kwargs) for log in logs]


def _full_row(log: EventLog, table: Mapping[str, float], branch: str) -> tuple[list[int], list[float]]:
    path = set(log.lineage(branch))
    stray = [i for i, e in enumerate(log.events) if i not in path and e.span is not None]
    if stray:
        raise ValueError(
            f"log {log.id!r}: events {stray[:5]} off branch {branch!r} carry spans into the same token_ids; "
            "project such logs with use_tokens=False"
        )
    token_weights = [0.0] * len(log.token_ids)
    last_generated = table["text"]
    ordered = sorted(path)
    for index in ordered:
        event = log.events[index]
        kind = event.payload.kind
        if kind == EventKind.TURN_COMPLETE:
            weight = last_generated
        else:
            weight = _kind_weight(kind, table)
            if kind in GENERATED_KINDS:
                last_generated = weight
        if event.span is not None and weight:
            start, end = event.span
            token_weights[start:end] = [weight] * (end - start)
    for (start, end), kind in _environment_turns(log, ordered):
        token_weights[start:end] = [_kind_weight(kind, table)] * (end - start)
    _raise_turn_starts(token_weights, [start for start, _ in _turn_starts(log, ordered)], table)
    return list(log.token_ids), token_weights


def assistant_turn_starts(log: EventLog, branch: str = "main") -> list[tuple[int, EventKind]]:
    """Token index of each assistant turn's first token in a full log, with the kind of the event it opens."""
    log.require_full("assistant_turn_starts")
    return _turn_starts(log, sorted(log.lineage(branch)))


def _turn_starts(log: EventLog, path: list[int]) -> list[tuple[int, EventKind]]:
    """A turn opens at the first generated event (with a span) after any other event on ``path``."""
    starts, in_turn = [], False
    for index in path:
        event = log.events[index]
        kind = event.payload.kind
        if kind in GENERATED_KINDS and not in_turn and event.span is not None:
            starts.append((event.span[0], kind))
        in_turn = kind in GENERATED_KINDS
    return starts


def _raise_turn_starts(
    token_weights: list[float], turn_starts: list[int], table: Mapping[str, float]
) -> None:
    """Lift the weight of each turn's first token to at least ``table["turn_start"]``, in place."""
    for index in turn_starts:
        if index < len(token_weights):
            token_weights[index] = max(token_weights[index], table["turn_start"])


ENVIRONMENT_KINDS = frozenset({EventKind.TOOL_RESULT, EventKind.OBSERVATION})


def _environment_turns(log: EventLog, path: list[int]) -> list[tuple[tuple[int, int], EventKind]]:
    """Token ranges of environment turns the runtime rendered without spans, with the kind they weigh as.

    The span-less events recorded since the last stretch of unspanned tokens own the next such stretch (the
    rendered turn, its template wrapper and the next assistant header: the runtime sees whole prompts, so finer
    boundaries are not in the log) when they are all TOOL_RESULT or all OBSERVATION events. Stretches owned by
    system or user text, or by a mix of kinds, are left at weight 0.
    """
    turns, pending, covered = [], [], 0
    for index in path:
        event = log.events[index]
        if event.span is None:
            pending.append(event.payload.kind)
            continue
        start, end = event.span
        if start > covered:
            kinds = set(pending)
            if len(kinds) == 1 and kinds <= ENVIRONMENT_KINDS:
                turns.append(((covered, start), pending[0]))
            pending = []
        covered = max(covered, end)
    return turns


def _light_row(
    log: EventLog, tokenizer: Any, table: Mapping[str, float], branch: str
) -> tuple[list[int], list[float]]:
    messages = rendered_messages(log, branch)
    if not messages:
        raise ValueError(f"log {log.id!r} has no messages to render on branch {branch!r}")
    tools = log.tools or None
    plain = [m.message() for m in messages]

    def render(prefix: list[dict[str, Any]], generation_prompt: bool = False) -> str:
        return tokenizer.apply_chat_template(
            prefix, tools=tools, tokenize=False, add_generation_prompt=generation_prompt
        )

    full = render(plain)
    # where each message starts (and the last one ends): each prefix is rendered once, the whole is ``full``
    bounds = [0, *(_common_prefix(render(plain[:k]), full) for k in range(1, len(plain))), len(full)]
    # (start char, weight) of each segment in order; a segment runs to the next one's start.
    segments: list[tuple[int, float]] = [(0, 0.0)]
    turn_start_chars = []
    for k, message in enumerate(messages):
        start, end = bounds[k], bounds[k + 1]
        if message.role != "assistant":
            weight = _kind_weight(message.parts[0][0], table) if message.parts else 0.0
            segments.append((start, weight))
            continue
        segments.append((start, 0.0))  # the assistant header the template adds
        header_end = _common_prefix(render(plain[:k], generation_prompt=True), full) if k else start
        turn_start_chars.append(header_end)
        segments.extend(_assistant_segments(message, plain[:k], render, full, header_end, table))
        segments.append((end, 0.0))
    _check_order(log, segments)
    encoding = tokenizer(full, add_special_tokens=False, return_offsets_mapping=True)
    starts = [s for s, _ in segments]
    token_starts = [first for first, _ in encoding["offset_mapping"]]
    token_weights = [segments[bisect.bisect_right(starts, first) - 1][1] for first in token_starts]
    turn_starts = [bisect.bisect_left(token_starts, char) for char in turn_start_chars]
    _raise_turn_starts(token_weights, turn_starts, table)
    return list(encoding["input_ids"]), token_weights


def _assistant_segments(
    message: RenderedMessage,
    before: list[dict[str, Any]],
    render: Any,
    full: str,
    header_end: int,
    table: Mapping[str, float],
) -> list[tuple[int, float]]:
    """Start and weight of each part of an assistant message."""
    segments = []
    start = header_end
    for j, (kind, _) in enumerate(message.parts):
        segments.append((start, _kind_weight(kind, table)))
        if j + 1 < len(message.parts):
            start = _common_prefix(render([*before, message.message(upto=j + 1)]), full)
    return segments


def _check_order(log: EventLog, segments: list[tuple[int, float]]) -> None:
    starts = [s for s, _ in segments]
    if starts != sorted(starts):
        raise ValueError(
            f"log {log.id!r}: a message prefix does not render as a prefix of the conversation; the chat "
            "template rewrites earlier turns, so segment weights cannot be placed by prefix rendering"
        )


def _common_prefix(a: str, b: str) -> int:
    """Length of the longest common prefix of ``a`` and ``b``."""
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo
