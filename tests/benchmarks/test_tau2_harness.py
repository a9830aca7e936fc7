"""The in-process tau2 harness: schemas, reset/step events, errors, termination, snapshot, DB caching."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("tau2.domains.telecom.environment")

from agenttune.benchmarks.tau2 import domains  # noqa: E402
from agenttune.benchmarks.tau2.harness import Tau2Harness  # noqa: E402
from agenttune.events.schema import Event, EventKind, TextPayload, ToolCallPayload  # noqa: E402
from agenttune.harness.protocol import EpisodeDone, Harness  # noqa: E402


def call(name: str, call_id: str = "c1", **arguments) -> Event:
    return Event(payload=ToolCallPayload(call_id=call_id, name=name, arguments=arguments))


def say(text: str) -> Event:
    return Event(payload=TextPayload(text=text))


@pytest.fixture(scope="module")
def retail() -> Tau2Harness:
    return Tau2Harness("retail")


@pytest.fixture(scope="module")
def retail_task(retail):
    return retail.tasks("train")[0]


def test_is_a_harness_with_real_tool_schemas(retail):
    assert isinstance(retail, Harness)
    assert "snapshot" in retail.capabilities()
    names = {schema["function"]["name"] for schema in retail.tool_schemas()}
    assert {"get_order_details", "exchange_delivered_order_items", "find_user_id_by_email"} <= names
    kinds = retail.tool_kinds()
    assert kinds["get_order_details"] == "read" and kinds["cancel_pending_order"] == "write"
    assert "user_id" in retail.tool_outputs()["find_user_id_by_email"]


def test_splits_match_the_package(retail):
    assert len(retail.tasks("train")) == 74 and len(retail.tasks("test")) == 40
    assert not {t.id for t in retail.tasks("train")} & {t.id for t in retail.tasks("test")}


def test_reset_returns_policy_and_first_user_message(retail, retail_task):
    events = retail.reset(retail_task)
    assert [e.kind for e in events] == [EventKind.SYSTEM, EventKind.USER]
    assert "policy" in events[0].payload.text.lower() or len(events[0].payload.text) > 500
    assert retail_task.user_scenario.instructions.reason_for_call.strip()[:40] in events[1].payload.text


def test_tool_call_runs_against_the_environment(retail, retail_task):
    retail.reset(retail_task)
    result = retail.step(call("get_order_details", order_id="#W2378156"))
    (observation,) = result.observations
    assert observation.kind == EventKind.TOOL_RESULT and not observation.payload.is_error
    assert json.loads(observation.payload.content)["order_id"] == "#W2378156"
    bad = retail.step(call("get_order_details", call_id="c2", order_id="#nope"))
    assert bad.observations[0].payload.is_error and not bad.done
    unknown = retail.step(call("no_such_tool", call_id="c3"))
    assert unknown.observations[0].payload.is_error


def test_agent_stop_scores_and_ends_the_episode(retail, retail_task):
    retail.reset(retail_task)
    result = retail.step(say("###STOP###"))
    assert result.done and result.reward == 0.0
    assert result.info["termination_reason"] == "agent_stop"
    json.dumps(result.info)  # storable in EventLog metadata / a REWARD event
    assert "db_check" in result.info["reward_info"] and "action_checks" in result.info["reward_info"]
    with pytest.raises(EpisodeDone):
        retail.step(say("hello?"))


def test_user_stop_after_final_message(retail, retail_task):
    retail.reset(retail_task)
    result = retail.step(say("All done. Is there anything else I can help you with?"))
    assert result.done and result.info["termination_reason"] == "user_stop"
    assert result.observations[0].kind == EventKind.USER


def test_step_budget_ends_with_max_steps_and_zero_reward(retail_task):
    harness = Tau2Harness("retail", max_steps=3)
    harness.reset(retail_task)
    results = [harness.step(call("list_all_product_types", call_id=f"c{i}")) for i in range(3)]
    assert [r.done for r in results] == [False, False, True]
    assert results[-1].info["termination_reason"] == "max_steps" and results[-1].reward == 0.0


def test_too_many_errors_ends_with_error(retail_task):
    harness = Tau2Harness("retail", max_errors=2)
    harness.reset(retail_task)
    harness.step(call("no_such_tool", call_id="a"))
    result = harness.step(call("no_such_tool", call_id="b"))
    assert result.done and result.info["termination_reason"] == "error"


def test_snapshot_restore_reverts_the_database(retail, retail_task):
    retail.reset(retail_task)
    saved = retail.snapshot()
    before = retail.step(call("get_order_details", order_id="#W2378156")).observations[0].payload.content
    retail.step(call("cancel_pending_order", call_id="c2", order_id="#W2378156", reason="no longer needed"))
    retail.restore(saved)
    after = (
        retail.step(call("get_order_details", call_id="c3", order_id="#W2378156"))
        .observations[0]
        .payload.content
    )
    assert after == before


def test_database_is_parsed_once_per_domain(retail, retail_task):
    reads = domains.READ_COUNTS["retail"]
    retail.reset(retail_task)
    retail.reset(retail_task)
    Tau2Harness("retail").reset(retail_task)
    assert domains.READ_COUNTS["retail"] == reads == 1


def test_telecom_user_runs_phone_tools_requested_by_the_agent():
    harness = Tau2Harness("telecom")
    task = harness.tasks("base")[0]
    harness.reset(task)
    result = harness.step(say("Please do this on your phone: toggle_airplane_mode({})"))
    assert not result.done and "toggle_airplane_mode" in result.observations[0].payload.text
    end = harness.step(say("Is there anything else I can help you with?"))
    assert end.info["user_tool_calls"][0]["name"] == "toggle_airplane_mode"
