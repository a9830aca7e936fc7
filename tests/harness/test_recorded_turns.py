"""Recorded turns replay as events that render back to the recorded conversation; the reply ends the episode."""

from __future__ import annotations

import pytest

from agenttune.events.projections.messages import events_to_messages
from agenttune.events.schema import Event, EventKind, TextPayload
from agenttune.harness.protocol import EpisodeDone
from agenttune.harness.recorded_turns import RecordedTurn, RecordedTurnHarness, message_events

CALL = {"id": "c1", "type": "function", "function": {"name": "search", "arguments": {"query": "rent"}}}
PROMPT = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "What is the rent?"},
    {"role": "assistant", "content": "Let me look.", "tool_calls": [CALL]},
    {"role": "tool", "content": "$5", "tool_call_id": "c1", "name": "search"},
]


def test_recorded_messages_render_back_and_are_not_the_policys():
    events = message_events(PROMPT)
    assert events_to_messages(events) == PROMPT
    assert {e.actor for e in events if e.kind in (EventKind.TEXT, EventKind.TOOL_CALL)} == {"recorded"}


def test_a_tool_result_whose_call_was_cut_off_becomes_an_observation():
    (event,) = message_events([{"role": "tool", "content": "$5", "tool_call_id": "gone", "name": "search"}])
    assert event.kind == EventKind.OBSERVATION and event.payload.content == "$5"


def test_the_reply_ends_the_episode():
    harness = RecordedTurnHarness()
    opening = harness.reset(RecordedTurn(id="t", prompt=PROMPT, reference="The rent is $5."))
    assert len(opening) == 5 and harness.tool_schemas() == []
    assert harness.step(Event(payload=TextPayload(text="$5"))).done
    with pytest.raises(EpisodeDone):
        harness.step(Event(payload=TextPayload(text="again")))
