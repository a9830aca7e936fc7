"""ToolGraph: schema-derived edges, read/write kinds, weights, prompt, scoring, gate, loop check, rules."""

from __future__ import annotations

import pytest

from agenttune.engines.base import Engine, Generation
from agenttune.events.schema import (
    Event,
    EventKind,
    EventLog,
    RewardPayload,
    TextPayload,
    ToolCallPayload,
    ToolResultPayload,
    UserPayload,
)
from agenttune.harness.protocol import BLOCKED_PREFIX, StepResult
from agenttune.selfevolve.candidates import ToolGraphEngine
from agenttune.selfevolve.config import ToolGraphConfig
from agenttune.selfevolve.guard import ToolGraphHarness
from agenttune.selfevolve.toolgraph import ToolGraph, entity_of


def schema(name: str, *params: str) -> dict:
    properties = {p: {"type": "string"} for p in params}
    return {"type": "function", "function": {"name": name, "parameters": {"properties": properties}}}


SCHEMAS = [
    schema("find_user", "email"),
    schema("get_user", "user_id"),
    schema("get_order", "order_id"),
    schema("cancel_order", "order_id", "reason"),
    schema("refund", "order_id", "payment_method_id"),
]
KINDS = {
    "find_user": "read",
    "get_user": "read",
    "get_order": "read",
    "cancel_order": "write",
    "refund": "write",
}
OUTPUTS = {
    "find_user": ["user_id"],
    "get_user": ["user_id", "orders", "payment_methods"],
    "get_order": ["order_id", "payment_method_id", "status"],
    "cancel_order": ["order_id"],
    "refund": ["order_id"],
}


def call(name: str, call_id: str, **arguments) -> Event:
    return Event(payload=ToolCallPayload(call_id=call_id, name=name, arguments=arguments), actor="agent")


def result(name: str, call_id: str, error: bool = False) -> Event:
    return Event(
        payload=ToolResultPayload(call_id=call_id, name=name, content="{}", is_error=error), actor="tool"
    )


@pytest.fixture
def graph() -> ToolGraph:
    return ToolGraph.build(
        SCHEMAS, KINDS, OUTPUTS, rules={"prerequisites": {"refund": ["get_user"]}, "notes": ["Be nice."]}
    )


def test_entity_names():
    assert entity_of("reservation_id") == "reservation"
    assert entity_of("new_item_ids") == "item"
    assert entity_of("phone_number") == "phone"
    assert entity_of("reason") is None


def test_edges_follow_outputs_into_inputs(graph):
    assert graph.edges[("find_user", "get_user")] == {"user"}
    assert graph.edges[("get_user", "get_order")] == {"order"}  # "orders" field -> order entity
    assert ("get_order", "refund") in graph.edges and ("refund", "find_user") not in graph.edges
    assert graph.is_write("cancel_order") and not graph.is_write("get_order")


def test_prerequisites_and_rules(graph):
    assert graph.prerequisites("cancel_order") == [{"get_order", "get_user"}]
    assert {"get_user"} in graph.prerequisites("refund", use_rules=True)
    assert {"get_user"} not in graph.prerequisites("refund", use_rules=False)
    assert graph.prerequisites("get_order") == []
    history = [call("get_order", "a", order_id="1"), result("get_order", "a", error=True)]
    assert graph.missing_prerequisites("cancel_order", history)  # a failed read does not count
    assert not graph.missing_prerequisites(
        "cancel_order", [call("get_order", "a", order_id="1"), result("get_order", "a")]
    )


def test_weights_from_successful_trajectories(graph):
    def log(names, reward):
        events = [call(n, f"c{i}") for i, n in enumerate(names)]
        events.append(
            Event(payload=RewardPayload(scope="episode", name="harness", value=reward), actor="judge")
        )
        return EventLog(id=f"l{reward}{len(names)}", events=events)

    before = graph.transition("get_user", "get_order")
    graph.fit(
        [log(["find_user", "get_user", "get_order", "cancel_order"], 1.0), log(["get_user", "refund"], 0.0)]
    )
    assert graph.transition("get_user", "get_order") > before
    assert graph.counts[("get_user", "refund")] == 0  # failures are not counted
    total = sum(graph.transition("get_user", n) for n in [*KINDS, "__text__", "__end__"])
    assert total == pytest.approx(1.0)
    assert "after get_user: usually get_order" in graph.planning_prompt()


def test_planning_prompt_lists_reads_writes_prerequisites_and_rules(graph):
    prompt = graph.planning_prompt()
    assert "cancel_order: first call get_order or get_user" in prompt and "Be nice." in prompt
    assert "Be nice." not in graph.planning_prompt(use_rules=False)


def test_candidate_scoring_prefers_reads_before_writes_and_penalises_repeats(graph):
    history = [Event(payload=UserPayload(text="cancel my order"), actor="user")]
    write, read = call("cancel_order", "x", order_id="1"), call("get_order", "y", order_id="1")
    assert graph.best([write, read], history) is read
    history += [read, result("get_order", "y")]
    again = call("get_order", "z", order_id="1")
    assert (
        graph.best([again, call("cancel_order", "w", order_id="1")], history).payload.name == "cancel_order"
    )


class Candidates(Engine):
    """Answers every conversation with its next reply in turn, so n samples of one turn differ."""

    def __init__(self, texts):
        self.texts, self.asked = texts, []

    def generate(self, conversations, tools=None, prompt_ids=None):
        self.asked.append(len(conversations))
        return [Generation.from_text(self.texts[i % len(self.texts)]) for i in range(len(conversations))]


def test_candidate_scoring_engine_keeps_the_best_scored_turn(graph):
    write = '<tool_call>{"name": "cancel_order", "arguments": {"order_id": "1"}}</tool_call>'
    read = '<tool_call>{"name": "get_order", "arguments": {"order_id": "1"}}</tool_call>'
    conversation = [{"role": "user", "content": "cancel my order"}]
    inner = Candidates([write, read])
    scored = ToolGraphEngine(inner, graph, ToolGraphConfig(num_candidates=2))
    (turn,) = scored.generate([conversation])
    assert turn.parsed.tool_calls[0].name == "get_order" and inner.asked == [2]
    after_read = [
        *conversation,
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "a",
                    "type": "function",
                    "function": {"name": "get_order", "arguments": {"order_id": "1"}},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "a", "name": "get_order", "content": "{}"},
    ]
    (turn,) = scored.generate([after_read])
    assert turn.parsed.tool_calls[0].name == "cancel_order"  # the read is done; repeating it is penalised


class RecordingHarness:
    """Stands in for a real harness: every tool call succeeds."""

    def __init__(self):
        self.ran = []

    def capabilities(self):
        return frozenset()

    def tool_schemas(self):
        return SCHEMAS

    def reset(self, task):
        return [Event(payload=UserPayload(text="hi"), actor="user")]

    def step(self, action):
        self.ran.append(action.payload.name if action.kind == EventKind.TOOL_CALL else "text")
        return StepResult(observations=[result(action.payload.name, action.payload.call_id)])


def test_pre_act_gate_blocks_a_write_without_its_reads(graph):
    inner = RecordingHarness()
    guarded = ToolGraphHarness(inner, graph, ToolGraphConfig(loop_check=False))
    guarded.reset(None)
    blocked = guarded.step(call("cancel_order", "a", order_id="1")).observations[0]
    assert blocked.payload.is_error and blocked.payload.content.startswith(BLOCKED_PREFIX) and inner.ran == []
    guarded.step(call("get_order", "b", order_id="1"))
    guarded.step(call("cancel_order", "c", order_id="1"))
    assert inner.ran == ["get_order", "cancel_order"]
    off = ToolGraphHarness(RecordingHarness(), graph, ToolGraphConfig(pre_act_gate=False))
    off.reset(None)
    assert not off.step(call("cancel_order", "a", order_id="1")).observations[0].payload.is_error


def test_loop_check_blocks_the_kth_identical_call_once(graph):
    inner = RecordingHarness()
    guarded = ToolGraphHarness(inner, graph, ToolGraphConfig(loop_limit=3))
    guarded.reset(None)
    outputs = [guarded.step(call("get_order", f"c{i}", order_id="1")).observations[0] for i in range(4)]
    assert [o.payload.content.startswith(BLOCKED_PREFIX) for o in outputs] == [False, False, True, False]
    assert inner.ran == ["get_order"] * 3


def test_planning_prompt_goes_into_the_system_event(graph):
    class WithSystem(RecordingHarness):
        def reset(self, task):
            from agenttune.events.schema import SystemPayload

            return [Event(payload=SystemPayload(text="POLICY"), actor="system")]

    on = ToolGraphHarness(WithSystem(), graph, ToolGraphConfig())
    off = ToolGraphHarness(WithSystem(), graph, ToolGraphConfig(planning_prompt=False))
    assert on.reset(None)[0].payload.text.startswith("POLICY\n\n## Tool plan")
    assert off.reset(None)[0].payload.text == "POLICY"


def test_text_actions_pass_the_gate(graph):
    guarded = ToolGraphHarness(RecordingHarness(), graph)
    guarded.reset(None)
    assert guarded.check(Event(payload=TextPayload(text="hello"))) is None


def test_real_tau2_graph():
    pytest.importorskip("tau2.domains.telecom.environment")
    from agenttune.benchmarks.tau2.harness import Tau2Harness

    graph = ToolGraph.from_harness(Tau2Harness("telecom"))
    assert graph.is_write("refuel_data")
    assert {"get_customer_by_id", "get_customer_by_name", "get_customer_by_phone"} in graph.prerequisites(
        "refuel_data"
    )
