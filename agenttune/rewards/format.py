"""The tool-call format reward: well-formed, malformed and missing ``<tool_call>{json}</tool_call>`` blocks.

Calls are read with :func:`agenttune.engines.tool_calls.parse_assistant_text`, the parser the engines use, so
the reward agrees with what the runtime would execute. In a conversational completion every assistant
message counts: its ``tool_calls`` field (calls already parsed upstream are well-formed) and the
``<tool_call>`` blocks left in its text.
"""

from __future__ import annotations

from typing import Any

from agenttune.engines.tool_calls import parse_assistant_text

WELL_FORMED = 1.0  # at least one call, and every call parses
MISSING = 0.0  # no call at all
MALFORMED = -1.0  # at least one call does not parse (bad JSON, no name, non-object arguments, unclosed tag)


def _call_counts(completion: str | list[dict[str, Any]]) -> tuple[int, int]:
    """(well-formed calls, malformed calls) in a completion."""
    messages = [{"role": "assistant", "content": completion}] if isinstance(completion, str) else completion
    good = bad = 0
    for message in messages:
        if message.get("role") != "assistant":
            continue
        parsed = parse_assistant_text(message.get("content") or "")
        good += len(parsed.tool_calls) + len(message.get("tool_calls") or [])
        bad += len(parsed.errors)
    return good, bad


def tool_call_format(
    completions: list[str] | list[list[dict[str, Any]]],
    well_formed: float = WELL_FORMED,
    missing: float = MISSING,
    malformed: float = MALFORMED,
    **kwargs: Any,
) -> list[float]:
    """Score each completion's tool calls: ``well_formed``, ``missing`` or ``malformed`` (three distinct values).

    Args:
        completions: generated texts, or conversations (lists of chat messages).
        well_formed: the score when there is at least one call and every call parses.
        missing: the score when there is no call.
        malformed: the score when any call does not parse (even next to good ones).
        **kwargs: other dataset columns, ignored.

    >>> tool_call_format([
    ...     '<tool_call>{"name": "search", "arguments": {"query": "rent"}}</tool_call>',
    ...     '<tool_call>{"name": "search", "arguments": {"query": </tool_call>',
    ...     "The rent is $5.",
    ... ])
    [1.0, -1.0, 0.0]
    """
    scores = []
    for completion in completions:
        good, bad = _call_counts(completion)
        scores.append(malformed if bad else well_formed if good else missing)
    return scores
