"""User faults: each rule on constructed tau2 episodes that should and should not be flagged, and the flag recorded
in the episode's metadata only when an LLM plays the user."""

from __future__ import annotations

import pytest

pytest.importorskip("tau2.domains.telecom.environment")

from agenttune.benchmarks.tau2.domains import STOP_TOKEN, load_tasks  # noqa: E402
from agenttune.benchmarks.tau2.harness import Tau2Harness  # noqa: E402
from agenttune.benchmarks.tau2.oracle import script_engine, scripted_agent, text_event  # noqa: E402
from agenttune.benchmarks.tau2.runner import run_tasks  # noqa: E402
from agenttune.benchmarks.tau2.user_faults import REASONS, user_fault  # noqa: E402
from agenttune.benchmarks.tau2.users import LLMUser, ScriptedUser  # noqa: E402
from agenttune.engines.scripted import ScriptedEngine  # noqa: E402
from agenttune.events.schema import (  # noqa: E402
    ErrorPayload,
    Event,
    EventLog,
    RewardPayload,
    SystemPayload,
    TextPayload,
    ToolCallPayload,
    UserPayload,
)


@pytest.fixture(scope="module")
def telecom():
    """John Smith, phone 555-123-2002; the user must toggle data saver mode and roaming on the phone."""
    return load_tasks("telecom", "test")[0]


@pytest.fixture(scope="module")
def retail():
    """mei_kovacs_8020 in zip code 28236; gold actions are all the agent's."""
    return next(t for t in load_tasks("retail", "test") if t.id == "5")


@pytest.fixture(scope="module")
def airline():
    """sophia_taylor_9065, reservation PEP4E0."""
    return next(t for t in load_tasks("airline", "test") if t.id == "6")


def episode(task, turns, termination="agent_stop", reward=0.0, matched=None, errors=()):
    """A recorded episode of ``task``: ``turns`` are ("user" | "agent" | "call", text or tool name); ``matched`` the
    gold actions tau2's action checks matched (all unmatched by default)."""
    events = [Event(payload=SystemPayload(text="policy"), actor="system")]
    for who, text in turns:
        if who == "user":
            events.append(Event(payload=UserPayload(text=text), actor="user"))
        elif who == "agent":
            events.append(Event(payload=TextPayload(text=text)))
        else:
            events.append(Event(payload=ToolCallPayload(call_id=text, name=text, arguments={})))
    events += [
        Event(payload=ErrorPayload(source=source, message="failed"), actor=source) for source in errors
    ]
    gold = task.evaluation_criteria.actions
    checks = [
        {"action": action.model_dump(mode="json"), "action_match": action.name in (matched or ())}
        for action in gold
    ]
    info = {"termination_reason": termination, "reward_info": {"reward": reward, "action_checks": checks}}
    events.append(
        Event(payload=RewardPayload(scope="episode", name="harness", value=reward, info=info), actor="env")
    )
    metadata = {"reward": reward, "termination_reason": termination, "user_tool_calls": []}
    return EventLog(id="log", task_id=task.id, events=events, metadata=metadata)


def test_a_successful_episode_is_never_flagged(retail):
    quits = [("user", "Hi"), ("agent", "Your order id?"), ("user", f"Bye {STOP_TOKEN}")]
    assert user_fault(episode(retail, quits, "user_stop", reward=0.0), retail) == "ended_early"
    assert user_fault(episode(retail, quits, "user_stop", reward=1.0), retail) == ""


def test_simulator_error_needs_the_user_as_the_source(retail):
    turns = [("user", "Hi"), ("agent", "Your order id?")]
    assert user_fault(episode(retail, turns, "error", errors=["user"]), retail) == "simulator_error"
    assert user_fault(episode(retail, turns, "error", errors=["harness"]), retail) == ""


@pytest.mark.parametrize(
    "said",
    [
        "My user id is mei_kovacs_1234.",  # the scenario gives mei_kovacs_8020
        "My zip code is 90210.",  # the scenario gives 28236
        "My name is Jane Doe.",  # the scenario's user is Mei Kovacs
        "You can email me at mei@example.com",  # the scenario gives no email
        "The order is #W1111111.",  # no one mentioned this order
    ],
)
def test_identifiers_the_user_was_never_given_contradict_its_instructions(retail, said):
    turns = [("user", "I want to exchange a lamp."), ("agent", "Who are you?"), ("user", said)]
    assert user_fault(episode(retail, turns), retail) == "contradicted_instructions"


@pytest.mark.parametrize(
    "said",
    [
        "I am mei_kovacs_8020, zip code 28236.",  # from the scenario
        "I am Mei Kovacs.",  # the name in the scenario's user id
        "Yes, order #W6390527 is the one.",  # the agent named it first
    ],
)
def test_identifiers_from_the_scenario_or_the_agent_are_not_contradictions(retail, said):
    turns = [("user", "I want to exchange a lamp."), ("agent", "Is it order #W6390527?"), ("user", said)]
    assert user_fault(episode(retail, turns), retail) == ""


def test_reservation_codes_and_phone_numbers_are_compared_to_the_scenario(airline, telecom):
    def flagged(task, said):
        return user_fault(episode(task, [("user", said), ("agent", "Thanks.")]), task)

    assert flagged(airline, "My reservation is PEP4E1.") == "contradicted_instructions"
    assert flagged(airline, "My reservation is PEP4E0, user sophia_taylor_9065.") == ""
    assert flagged(telecom, "My number is 555-123-9999.") == "contradicted_instructions"
    assert flagged(telecom, "My number is (555) 123-2002 and I am John Smith.") == ""


def test_ended_early_is_a_stop_before_the_agent_closed_with_work_left(retail):
    asked = [("user", "Hi"), ("agent", "Looking."), ("user", "Ok"), ("agent", "Your order id?")]
    stop = [("user", STOP_TOKEN)]
    assert user_fault(episode(retail, asked + stop, "user_stop"), retail) == "ended_early"
    closed = [*asked[:-1], ("agent", "I cannot exchange it. Is there anything else?"), *stop]
    assert user_fault(episode(retail, closed, "user_stop"), retail) == ""  # the agent had finished
    everything = [a.name for a in retail.evaluation_criteria.actions]
    assert user_fault(episode(retail, asked + stop, "user_stop", matched=everything), retail) == ""
    first_reply = [("user", "Hi"), ("agent", "Your order id?"), *stop]
    assert user_fault(episode(retail, first_reply, "user_stop", matched=everything), retail) == "ended_early"
    assert user_fault(episode(retail, asked + stop, "agent_stop"), retail) == ""


def test_ignored_request_is_a_user_action_asked_for_and_not_done(telecom):
    request = "Please do this on your phone: toggle_data_saver_mode({})"
    turns = [("user", "My data is slow."), ("agent", request), ("user", "Okay, thanks!")]
    assert user_fault(episode(telecom, turns), telecom) == "ignored_request"
    in_words = [("user", "My data is slow."), ("agent", "Please toggle data saver mode."), ("user", "Okay")]
    assert user_fault(episode(telecom, in_words), telecom) == "ignored_request"
    done = episode(telecom, turns, matched=["toggle_data_saver_mode", "toggle_roaming"])
    assert user_fault(done, telecom) == ""
    never_asked = [
        ("user", "My data is slow."),
        ("call", "get_customer_by_phone"),
        ("agent", "Anything else?"),
    ]
    assert user_fault(episode(telecom, never_asked), telecom) == ""
    unanswered = [("user", "My data is slow."), ("agent", f"{request} {STOP_TOKEN}")]
    assert user_fault(episode(telecom, unanswered), telecom) == ""
    assert REASONS == ("simulator_error", "contradicted_instructions", "ended_early", "ignored_request")


def quitter(conversation, tools):
    """An LLM user that states its problem, then stops at the agent's first message."""
    return "My mobile data is slow." if len(conversation) == 2 else f"Bye. {STOP_TOKEN}"


def test_the_flag_is_recorded_only_for_llm_users(telecom):
    llm = lambda: Tau2Harness("telecom", user=LLMUser(ScriptedEngine(quitter)))  # noqa: E731
    (quit_log,) = run_tasks(scripted_agent("oracle"), llm, [telecom], "telecom", "oracle")
    assert quit_log.metadata["termination_reason"] == "user_stop" and quit_log.metadata["reward"] == 0.0
    assert quit_log.metadata["user_fault"] == "ended_early"
    asks = lambda task: script_engine([text_event("What is your phone number?")])  # noqa: E731
    scripted = lambda: Tau2Harness("telecom", user=ScriptedUser(max_replies=0))  # noqa: E731
    (quit_scripted,) = run_tasks(asks, scripted, [telecom], "telecom", "asks")
    assert quit_scripted.metadata["termination_reason"] == "user_stop"
    assert user_fault(quit_scripted, telecom) == "ended_early"  # what the rules say of it
    assert quit_scripted.metadata["user_fault"] == ""  # a scripted user is never blamed
