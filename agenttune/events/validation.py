"""Cross-event rules of an :class:`~agenttune.events.schema.EventLog` (the module docstring of ``schema`` lists them).

Field types are pydantic's job; these checks need the whole log: branch structure, tool-call linkage and the
tier's token accounting. Each raises ``ValueError`` naming the offending event as ``event <index> (<kind>)``,
which pydantic wraps into the ``ValidationError`` of the model being built.
"""

from __future__ import annotations

from itertools import pairwise
from typing import TYPE_CHECKING

from agenttune.events.schema import GENERATED_KINDS, SUPPORTED_VERSIONS, EventKind

if TYPE_CHECKING:
    from agenttune.events.schema import Event, EventLog


def check_log(log: EventLog) -> None:
    """Raise ``ValueError`` if ``log`` breaks a rule; return quietly otherwise."""
    if log.schema_version not in SUPPORTED_VERSIONS:
        raise ValueError(
            f"schema_version {log.schema_version!r} is not supported; this reader accepts {sorted(SUPPORTED_VERSIONS)}"
        )
    parents = _check_branches(log)
    _check_tool_calls(log, parents)
    if log.tier == "full":
        _check_full_tier(log)
    else:
        _check_light_tier(log)


def _where(index: int, event: Event) -> str:
    return f"event {index} ({event.payload.kind.value})"


def _check_branches(log: EventLog) -> dict[str, tuple[str | None, int | None]]:
    """Check the branch table; return ``{branch: (parent, fork_index)}``."""
    parents: dict[str, tuple[str | None, int | None]] = {}
    for branch in log.branches:
        if branch.id in parents:
            raise ValueError(f"branch {branch.id!r} is declared twice")
        parents[branch.id] = (branch.parent, branch.fork_index)
    for branch in log.branches:
        if branch.parent is None:
            continue
        if branch.id == "main":
            raise ValueError("branch 'main' is the root and cannot have a parent")
        if branch.parent not in parents:
            raise ValueError(f"branch {branch.id!r} names parent {branch.parent!r}, which is not declared")
        if branch.fork_index is not None and not 0 <= branch.fork_index < len(log.events):
            raise ValueError(f"branch {branch.id!r} forks at index {branch.fork_index}, outside the events")
        seen, node = {branch.id}, branch.parent
        while node is not None:
            if node in seen:
                raise ValueError(f"branch {branch.id!r} has a parent cycle through {node!r}")
            seen.add(node)
            node = parents[node][0]
    if len(parents) == 1:
        for index, event in enumerate(log.events):
            if event.branch not in parents:
                raise ValueError(
                    f"{_where(index, event)} is on branch {event.branch!r}, which is not declared"
                )
        return parents
    for index, event in enumerate(log.events):
        if event.branch not in parents:
            raise ValueError(f"{_where(index, event)} is on branch {event.branch!r}, which is not declared")
        fork = parents[event.branch][1]
        if fork is not None and index <= fork:
            raise ValueError(
                f"{_where(index, event)} on branch {event.branch!r} comes before its fork index {fork}"
            )
    return parents


def _check_tool_calls(log: EventLog, parents: dict[str, tuple[str | None, int | None]]) -> None:
    """Every TOOL_RESULT answers an earlier TOOL_CALL of its lineage; call ids are unique per lineage."""
    if len(parents) == 1:
        calls: set[str] = set()
        for index, event in enumerate(log.events):
            payload = event.payload
            if payload.kind == EventKind.TOOL_CALL:
                if payload.call_id in calls:
                    raise ValueError(f"{_where(index, event)} reuses call_id {payload.call_id!r}")
                calls.add(payload.call_id)
            elif payload.kind == EventKind.TOOL_RESULT and payload.call_id not in calls:
                raise ValueError(
                    f"{_where(index, event)} answers call_id {payload.call_id!r}, but no earlier TOOL_CALL "
                    f"on branch {event.branch!r} or its ancestors has that id"
                )
        return
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
                raise ValueError(f"{_where(index, event)} reuses call_id {payload.call_id!r}")
            calls_by_branch[event.branch].append((index, payload.call_id))
        elif payload.call_id not in visible:
            raise ValueError(
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
        raise ValueError(f"log {log.id!r} is light but carries token ids; set tier='full' to keep them")
    for index, event in enumerate(log.events):
        if event.span is not None or event.logprobs is not None:
            raise ValueError(
                f"{_where(index, event)} carries a span or logprobs in a light log; set tier='full' to keep them"
            )


def _check_full_tier(log: EventLog) -> None:
    if log.token_ids is None:
        raise ValueError(f"log {log.id!r} claims tier 'full' but has no token_ids")
    size = len(log.token_ids)
    spans: list[tuple[int, int, int]] = []  # (start, end, event index)
    scored: list[tuple[int, int]] = []  # spans that carry logprobs: the model-generated tokens
    for index, event in enumerate(log.events):
        span, logprobs = event.span, event.logprobs
        generated = event.payload.kind in GENERATED_KINDS and event.actor == "agent"
        if span is None:
            if generated:
                raise ValueError(
                    f"{_where(index, event)} was generated by the agent but has no token span: a full log must "
                    "cover every model-generated token with a span and logprobs"
                )
            if logprobs is not None:
                raise ValueError(f"{_where(index, event)} has logprobs but no span")
            continue
        start, end = span
        if not 0 <= start <= end <= size:
            raise ValueError(
                f"{_where(index, event)} has span {list(span)} outside token_ids (length {size})"
            )
        if generated and logprobs is None:
            raise ValueError(
                f"{_where(index, event)} was generated by the agent but has no logprobs: a full log needs one "
                "logprob per model-generated token"
            )
        if logprobs is not None:
            if len(logprobs) != end - start:
                raise ValueError(
                    f"{_where(index, event)} has {len(logprobs)} logprobs for a span of {end - start} tokens"
                )
            if start == end:
                raise ValueError(f"{_where(index, event)} carries logprobs on an empty span")
            scored.append((start, end))
        spans.append((start, end, index))
    _check_no_overlap(log, spans)
    if log.generated_spans is not None:
        _check_generated_covered(log.generated_spans, scored, size)


def _check_no_overlap(log: EventLog, spans: list[tuple[int, int, int]]) -> None:
    ordered = spans if all(a[1] <= b[0] for a, b in pairwise(spans)) else sorted(spans)
    for (_, end, first), (start, _, second) in pairwise(ordered):
        if start < end:
            raise ValueError(
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
            raise ValueError(f"generated span {[start, end]} is outside token_ids (length {size})")
        if start == end:
            continue
        if not any(lo <= start and end <= hi for lo, hi in merged):
            raise ValueError(
                f"generated tokens {[start, end]} are not covered by event spans with logprobs: every "
                "model-generated token needs an event span and a logprob"
            )
