"""Failure detection on hand-built logs: low reward, error events, loops, max steps; audit logs read for episodes."""

from __future__ import annotations

from agenttune.events import write_jsonl
from agenttune.events.schema import Event, EventLog, ObservationPayload, TurnCompletePayload, replace
from agenttune.selfheal.detect import detect_failures, read_episodes
from tests.events.builders import search_episode
from tests.events.test_trajectory import episode


def test_each_symptom_is_a_failure_reason():
    good = search_episode(log_id="good", reward=1.0)
    low = search_episode(log_id="low", reward=0.2)
    erring = episode([("search", {"query": 1}, True)], log_id="err", extra=good.events[-2:])
    looping = episode([("search", {"query": "a"}, False)] * 3, log_id="loop", extra=good.events[-2:])
    out_of_turns = replace(
        good,
        id="steps",
        events=[*good.events[:-3], Event(payload=TurnCompletePayload(reason="max_turns")), *good.events[-2:]],
    )
    failures = {
        f.log.id: f for f in detect_failures([good, low, erring, looping, out_of_turns], "total", 0.5)
    }
    assert sorted(failures) == ["err", "loop", "low", "steps"]
    assert failures["low"].reasons == ("low_reward",)
    assert failures["err"].reasons == ("errors",) and "tool_execution_error" in failures["err"].categories
    assert failures["loop"].reasons == ("loop",) and "redundant_read" in failures["loop"].categories
    assert failures["steps"].reasons == ("max_steps",)


def test_an_audit_log_gives_its_agent_episodes_only(tmp_path):
    node = EventLog(
        id="wf/case-0/step-1/route/0",
        events=[Event(payload=ObservationPayload(content="{}", source="decision"), actor="workflow")],
        metadata={"kind": "decision"},
    )
    agent = replace(search_episode(log_id="wf/case-0/step-0/review/0"), metadata={"kind": "agent"})
    write_jsonl([agent, node], tmp_path / "run" / "audit.jsonl")
    write_jsonl([search_episode(log_id="eval-1")], tmp_path / "eval.jsonl")
    assert [log.id for log in read_episodes([tmp_path / "run", tmp_path / "eval.jsonl"])] == [
        "wf/case-0/step-0/review/0",
        "eval-1",
    ]
