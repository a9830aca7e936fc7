"""Hypothesis strategies that build valid EventLogs of every kind, light and full tier, with branches."""

from __future__ import annotations

from hypothesis import strategies as st

from agenttune.events.kinds import GENERATED_KINDS
from agenttune.events.schema import (
    Branch,
    ErrorPayload,
    Event,
    EventLog,
    MemoryOpPayload,
    ObservationPayload,
    ReasoningPayload,
    RewardPayload,
    SystemPayload,
    TextPayload,
    ToolCallPayload,
    ToolResultPayload,
    TurnCompletePayload,
    UserPayload,
    replace,
)

text = st.text(max_size=20)
names = st.from_regex(r"[a-z_]{1,8}", fullmatch=True)
floats = st.floats(allow_nan=False, allow_infinity=False, width=64)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | floats | text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(names, inner, max_size=3),
    max_leaves=6,
)
json_objects = st.dictionaries(names, json_values, max_size=3)

# Payloads that need no link to another event.
plain_payloads = st.one_of(
    st.builds(SystemPayload, text=text),
    st.builds(UserPayload, text=text),
    st.builds(TextPayload, text=text),
    st.builds(ReasoningPayload, text=text),
    st.builds(ObservationPayload, content=text, source=names),
    st.builds(TurnCompletePayload, reason=names),
    st.builds(
        RewardPayload,
        scope=st.sampled_from(["step", "turn", "episode"]),
        name=names,
        value=floats,
        info=json_objects,
    ),  # fmt: skip
    st.builds(
        MemoryOpPayload, op=st.sampled_from(["write", "read", "delete", "summarize"]), key=names, value=text
    ),
    st.builds(ErrorPayload, source=names, message=text, raw=text),
)
actors = st.sampled_from(["agent", "user", "env", "tool", "judge"])


@st.composite
def branch_events(draw, branch: str, first_call: int, answerable: list[tuple[str, str]]) -> list[Event]:
    """Events on one branch; tool results answer calls made earlier on it or in ``answerable``."""
    events: list[Event] = []
    calls = list(answerable)
    for _ in range(draw(st.integers(0, 8))):
        choice = draw(st.sampled_from(["plain", "plain", "call", "result"]))
        step = draw(st.integers(0, 5))
        metadata = draw(st.just({}) | json_objects)
        if choice == "call":
            call_id = f"{branch}-c{first_call + len(events)}"
            name = draw(names)
            payload = ToolCallPayload(call_id=call_id, name=name, arguments=draw(json_objects))
            calls.append((call_id, name))
            events.append(Event(payload=payload, branch=branch, step=step, metadata=metadata))
        elif choice == "result" and calls:
            call_id, name = draw(st.sampled_from(calls))
            payload = ToolResultPayload(
                call_id=call_id,
                name=name,
                content=draw(text),
                is_error=draw(st.booleans()),
                metadata=draw(json_objects),
            )
            events.append(Event(payload=payload, actor="tool", branch=branch, step=step, metadata=metadata))
        else:
            payload = draw(plain_payloads)
            actor = "agent" if payload.kind in GENERATED_KINDS else draw(actors)
            events.append(Event(payload=payload, actor=actor, branch=branch, step=step, metadata=metadata))
    return events


@st.composite
def light_logs(draw) -> EventLog:
    """A valid light log, sometimes with a second branch forked from main."""
    main = draw(branch_events("main", 0, []))
    events, branches = list(main), [Branch(id="main")]
    if main and draw(st.booleans()):
        fork = draw(st.integers(0, len(main) - 1))
        visible = [(p.call_id, p.name) for e in main[: fork + 1] if (p := e.payload).kind == "tool_call"]
        alt = draw(branch_events("alt", len(main), visible))
        status = draw(st.sampled_from(["accepted", "rejected", "open"]))
        branches.append(Branch(id="alt", parent="main", fork_index=fork, status=status, note=draw(text)))
        events += alt
    return EventLog(
        id=draw(names),
        source=draw(text),
        task_id=draw(text),
        tools=draw(st.lists(json_objects, max_size=2)),
        events=events,
        branches=branches,
        metadata=draw(json_objects),
    )


@st.composite
def full_logs(draw) -> EventLog:
    """A valid full log: spans laid out in order with gaps, logprobs on every generated event."""
    light = draw(light_logs())
    position, events, scored = draw(st.integers(0, 3)), [], []
    for event in light.events:
        generated = event.payload.kind in GENERATED_KINDS and event.actor == "agent"
        with_span = generated or draw(st.booleans())
        if not with_span:
            events.append(event)
            continue
        length = draw(st.integers(1 if generated else 0, 4))
        span = (position, position + length)
        logprobs = None
        if generated or (length and draw(st.booleans())):
            logprobs = draw(st.lists(st.floats(-30, 0), min_size=length, max_size=length))
            scored.append(span)
        events.append(replace(event, span=span, logprobs=logprobs))
        position += length + draw(st.integers(0, 2))
    token_ids = draw(st.lists(st.integers(0, 50_000), min_size=position, max_size=position))
    generated_spans = draw(st.none() | st.just(scored))
    fields = {
        name: getattr(light, name) for name in ("id", "source", "task_id", "tools", "branches", "metadata")
    }
    return EventLog(
        tier="full", events=events, token_ids=token_ids, generated_spans=generated_spans, **fields
    )


logs = st.one_of(light_logs(), full_logs())
