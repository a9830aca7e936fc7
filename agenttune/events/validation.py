"""Cross-event rules of an :class:`~agenttune.events.schema.EventLog` (the module docstring of ``schema`` lists them).

Field types are checked when a log is decoded; these checks need the whole log: branch structure, tool-call
linkage and the tier's token accounting. They run whenever an ``EventLog`` is built or decoded, and each raises
:class:`~agenttune.events.schema.EventLogError` naming the offending event as ``event <index> (<kind>)``.

:func:`check_call_text` needs the tokenizer too, so it runs when asked (``python -m agenttune.events validate
--tokenizer ...``): in a full log each agent TOOL_CALL's arguments must be those written in the text of its own
token span. A call changed after it was generated (a tool that kept an argument list and mutated it later) would
otherwise leave a log whose record of the call disagrees with the tokens trained on.
"""

from __future__ import annotations

import json
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from agenttune.events.kinds import GENERATED_KINDS, SUPPORTED_VERSIONS, EventKind, EventLogError

if TYPE_CHECKING:
    from agenttune.events.schema import Event, EventLog


def check_log(log: EventLog) -> None:
    """Raise :class:`EventLogError` if ``log`` breaks a rule; return quietly otherwise."""
    if log.schema_version not in SUPPORTED_VERSIONS:
        raise EventLogError(
            f"schema_version {log.schema_version!r} is not supported; this reader accepts {sorted(SUPPORTED_VERSIONS)}"
        )
    branches = log.branches
    if len(branches) == 1 and branches[0].parent is None:
        _check_one_branch(log, branches[0].id)
        return
    parents = _check_branches(log)
    _check_tool_calls(log, parents)
    if log.tier == "full":
        _check_full_tier(log)
    else:
        _check_light_tier(log)


def _check_one_branch(log: EventLog, root: str) -> None:
    """The usual log, one branch and no forks, in one pass over the events: the branch, tool-call and light
    tier rules of the general path (the first offending event is the one reported)."""
    light = log.tier != "full"
    if light and (log.token_ids is not None or log.generated_spans is not None):
        raise EventLogError(f"log {log.id!r} is light but carries token ids; set tier='full' to keep them")
    calls: set[str] = set()
    tool_call, tool_result = EventKind.TOOL_CALL, EventKind.TOOL_RESULT
    for index, event in enumerate(log.events):
        if event.branch != root or (light and (event.span is not None or event.logprobs is not None)):
            if event.branch != root:
                raise EventLogError(
                    f"{_where(index, event)} is on branch {event.branch!r}, which is not declared"
                )
            raise EventLogError(
                f"{_where(index, event)} carries a span or logprobs in a light log; set tier='full' to keep them"
            )
        payload = event.payload
        kind = payload.kind
        if kind is tool_call:
            if payload.call_id in calls:
                raise EventLogError(f"{_where(index, event)} reuses call_id {payload.call_id!r}")
            calls.add(payload.call_id)
        elif kind is tool_result and payload.call_id not in calls:
            raise EventLogError(
                f"{_where(index, event)} answers call_id {payload.call_id!r}, but no earlier TOOL_CALL "
                f"on branch {event.branch!r} or its ancestors has that id"
            )
    if not light:
        _check_full_tier(log)


def _where(index: int, event: Event) -> str:
    return f"event {index} ({event.payload.kind.value})"


def _check_branches(log: EventLog) -> dict[str, tuple[str | None, int | None]]:
    """Check the branch table; return ``{branch: (parent, fork_index)}``."""
    parents: dict[str, tuple[str | None, int | None]] = {}
    for branch in log.branches:
        if branch.id in parents:
            raise EventLogError(f"branch {branch.id!r} is declared twice")
        parents[branch.id] = (branch.parent, branch.fork_index)
    for branch in log.branches:
        if branch.parent is None:
            continue
        if branch.id == "main":
            raise EventLogError("branch 'main' is the root and cannot have a parent")
        if branch.parent not in parents:
            raise EventLogError(f"branch {branch.id!r} names parent {branch.parent!r}, which is not declared")
        if branch.fork_index is not None and not 0 <= branch.fork_index < len(log.events):
            raise EventLogError(
                f"branch {branch.id!r} forks at index {branch.fork_index}, outside the events"
            )
        seen, node = {branch.id}, branch.parent
        while node is not None:
            if node in seen:
                raise EventLogError(f"branch {branch.id!r} has a parent cycle through {node!r}")
            seen.add(node)
            node = parents[node][0]
    for index, event in enumerate(log.events):
        if event.branch not in parents:
            raise EventLogError(
                f"{_where(index, event)} is on branch {event.branch!r}, which is not declared"
            )
        fork = parents[event.branch][1]
        if fork is not None and index <= fork:
            raise EventLogError(
                f"{_where(index, event)} on branch {event.branch!r} comes before its fork index {fork}"
            )
    return parents


def _check_tool_calls(log: EventLog, parents: dict[str, tuple[str | None, int | None]]) -> None:
    """Every TOOL_RESULT answers an earlier TOOL_CALL of its lineage; call ids are unique per lineage."""
    calls_by_branch: dict[str, list[tuple[int, str]]] = {b: [] for b in parents}
    first_index: dict[str, int] = {}
    for index, event in enumerate(log.events):
        first_index.setdefault(event.branch, index)
        payload = event.payload
        if payload.kind not in (EventKind.TOOL_CALL, EventKind.TOOL_RESULT):
            continue
        visible = _visible_calls(event.branch, index, parents, calls_by_branch, first_index)
        if payload.kind == EventKind.TOOL_CALL:
            if payload.call_id in visible:
                raise EventLogError(f"{_where(index, event)} reuses call_id {payload.call_id!r}")
            calls_by_branch[event.branch].append((index, payload.call_id))
        elif payload.call_id not in visible:
            raise EventLogError(
                f"{_where(index, event)} answers call_id {payload.call_id!r}, but no earlier TOOL_CALL "
                f"on branch {event.branch!r} or its ancestors has that id"
            )


def _visible_calls(
    branch: str,
    index: int,
    parents: dict[str, tuple[str | None, int | None]],
    calls_by_branch: dict[str, list[tuple[int, str]]],
    first_index: dict[str, int],
) -> set[str]:
    """Call ids of TOOL_CALLs before ``index`` in ``branch``'s lineage."""
    visible: set[str] = set()
    node: str | None = branch
    limit = index
    while node is not None:
        visible.update(call_id for at, call_id in calls_by_branch[node] if at < limit)
        parent, fork = parents[node]
        if parent is not None:
            fork = fork if fork is not None else first_index.get(node, index) - 1
            limit = min(limit, fork + 1)
        node = parent
    return visible


def _check_light_tier(log: EventLog) -> None:
    if log.token_ids is not None or log.generated_spans is not None:
        raise EventLogError(f"log {log.id!r} is light but carries token ids; set tier='full' to keep them")
    for index, event in enumerate(log.events):
        if event.span is not None or event.logprobs is not None:
            raise EventLogError(
                f"{_where(index, event)} carries a span or logprobs in a light log; set tier='full' to keep them"
            )


def _check_full_tier(log: EventLog) -> None:
    if log.token_ids is None:
        raise EventLogError(f"log {log.id!r} claims tier 'full' but has no token_ids")
    size = len(log.token_ids)
    spans: list[tuple[int, int, int]] = []  # (start, end, event index)
    scored: list[tuple[int, int]] = []  # spans that carry logprobs: the model-generated tokens
    for index, event in enumerate(log.events):
        span, logprobs = event.span, event.logprobs
        generated = event.payload.kind in GENERATED_KINDS and event.actor == "agent"
        if span is None:
            if generated:
                raise EventLogError(
                    f"{_where(index, event)} was generated by the agent but has no token span: a full log must "
                    "cover every model-generated token with a span and logprobs"
                )
            if logprobs is not None:
                raise EventLogError(f"{_where(index, event)} has logprobs but no span")
            continue
        start, end = span
        if not 0 <= start <= end <= size:
            raise EventLogError(
                f"{_where(index, event)} has span {list(span)} outside token_ids (length {size})"
            )
        if generated and logprobs is None:
            raise EventLogError(
                f"{_where(index, event)} was generated by the agent but has no logprobs: a full log needs one "
                "logprob per model-generated token"
            )
        if logprobs is not None:
            if len(logprobs) != end - start:
                raise EventLogError(
                    f"{_where(index, event)} has {len(logprobs)} logprobs for a span of {end - start} tokens"
                )
            if start == end:
                raise EventLogError(f"{_where(index, event)} carries logprobs on an empty span")
            scored.append((start, end))
        spans.append((start, end, index))
    _check_no_overlap(log, spans)
    if log.generated_spans is not None:
        _check_generated_covered(log.generated_spans, scored, size)


def _check_no_overlap(log: EventLog, spans: list[tuple[int, int, int]]) -> None:
    ordered = spans if all(a[1] <= b[0] for a, b in pairwise(spans)) else sorted(spans)
    for (_, end, first), (start, _, second) in pairwise(ordered):
        if start < end:
            raise EventLogError(
                f"{_where(second, log.events[second])} has a span overlapping that of "
                f"{_where(first, log.events[first])}"
            )


def _check_generated_covered(
    generated: list[tuple[int, int]], scored: list[tuple[int, int]], size: int
) -> None:
    """Each engine-recorded generated range must lie inside the union of spans with logprobs."""
    merged: list[list[int]] = []
    for start, end in sorted(scored):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    for start, end in generated:
        if not 0 <= start <= end <= size:
            raise EventLogError(f"generated span {[start, end]} is outside token_ids (length {size})")
        if start == end:
            continue
        if not any(lo <= start and end <= hi for lo, hi in merged):
            raise EventLogError(
                f"generated tokens {[start, end]} are not covered by event spans with logprobs: every "
                "model-generated token needs an event span and a logprob"
            )


def _json_objects(text: str) -> list[Any]:
    """The JSON objects written in ``text``, outermost only, in order."""
    decoder, found = json.JSONDecoder(), []
    start = text.find("{")
    while start != -1:
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            start = text.find("{", start + 1)
            continue
        found.append(value)
        start = text.find("{", end)
    return found


def check_call_text(log: EventLog, tokenizer: Any) -> None:
    """Raise :class:`EventLogError` if an agent TOOL_CALL of a full log disagrees with its token span.

    The span's tokens are decoded with ``tokenizer`` (the one the log was recorded with) and must write the
    call as a JSON object ``{"name": ..., "arguments": {...}}`` (the ``<tool_call>`` body; a missing
    ``arguments`` means none) with the event's name and arguments. Light logs and events without a span have no
    tokens to compare and pass.
    """
    if log.tier != "full":
        return
    for index, event in enumerate(log.events):
        payload = event.payload
        if payload.kind != EventKind.TOOL_CALL or event.actor != "agent" or event.span is None:
            continue
        start, end = event.span
        text = tokenizer.decode(log.token_ids[start:end], skip_special_tokens=False)
        written = [
            obj.get("arguments", {})
            for obj in _json_objects(text)
            if isinstance(obj, dict) and obj.get("name") == payload.name
        ]
        if not written:
            raise EventLogError(
                f"{_where(index, event)} calls {payload.name!r}, but its token span writes no such call: {text!r:.200}"
            )
        logged = json.loads(json.dumps(payload.arguments))  # tuples as lists, as the text reads back
        if logged not in written:
            raise EventLogError(
                f"{_where(index, event)} has arguments {json.dumps(logged)[:200]}, but its token span writes "
                f"{json.dumps(written[0])[:200]}: the call was changed after it was generated (a tool that kept "
                "and mutated an argument?)"
            )
