"""Strategies: the StrategyConfig constructor, PlanExecute's plan turn, Reflexion's retries, MemoryReAct's memory."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from agenttune.agents.episode import run_episodes
from agenttune.agents.strategies import MemoryReAct, PlanExecute, ReAct, Reflexion
from agenttune.agents.toy import CalculatorHarness, calculator_policy, tasks
from agenttune.config import StrategyConfig
from agenttune.engines.scripted import ScriptedEngine
from agenttune.events.schema import EventKind


def call(name, **arguments):
    return {"content": "", "tool_calls": [{"function": {"name": name, "arguments": arguments}}]}


def scripted(replies, tokenizer):
    replies = iter(replies)
    return ScriptedEngine(lambda conversation, tools: next(replies), tokenizer)


@pytest.mark.parametrize("cls", [ReAct, PlanExecute, Reflexion, MemoryReAct])
def test_constructors_take_exactly_the_strategy_config_fields(cls):
    fields = {f.name for f in dataclasses.fields(StrategyConfig)} - {"_target_"}
    assert set(inspect.signature(cls).parameters) == fields


def test_react_stops_at_max_turns(tokenizer):
    engine = ScriptedEngine(lambda conversation, tools: call("add", a=1, b=1), tokenizer)
    [log] = run_episodes(engine, CalculatorHarness, ReAct(max_turns=2), tasks(1))
    assert log.metadata["termination"] == "max_turns"
    assert sum(e.kind == EventKind.TOOL_CALL for e in log.events) == 2


def test_plan_execute_answers_the_plan_itself(tokenizer):
    seen = []

    def policy(conversation, tools):
        seen.append(conversation[-1]["content"])
        return "1. add  2. answer" if len(seen) == 1 else calculator_policy(conversation, tools)

    harness = CalculatorHarness()
    [log] = run_episodes(ScriptedEngine(policy, tokenizer), [harness], PlanExecute(), tasks(2)[1:])
    assert seen[0] == PlanExecute.PLAN and seen[1] == PlanExecute.EXECUTE
    assert [a.kind.value for a in harness.actions] == [
        "tool_call",
        "text",
    ]  # the plan never reached the harness
    prompts = [e.payload.text for e in log.events if e.kind == EventKind.USER and e.actor == "strategy"]
    assert prompts == [PlanExecute.PLAN, PlanExecute.EXECUTE]
    assert (
        log.metadata["termination"] == "agent_stop"
        and log.rewards() == {"harness": 1.0}
        and log.tier == "full"
    )


def test_reflexion_retries_failed_attempts_with_reflections(tokenizer):
    harness = CalculatorHarness()
    replies = [
        "The answer is 5.",
        "I guessed; I should add. The answer is 4.",
        "Add properly: the answer is 1.",
    ]
    [log] = run_episodes(scripted(replies, tokenizer), [harness], Reflexion(max_reflections=2), tasks(1))
    assert harness.resets == 3
    assert [e.payload.scope for e in log.events if e.kind == EventKind.REWARD] == ["turn", "turn", "episode"]
    assert log.rewards() == {"harness": 1.0}
    memory = [(e.payload.op, e.payload.key) for e in log.events if e.kind == EventKind.MEMORY_OP]
    assert memory == [("write", "reflection_1"), ("write", "reflection_2")]
    retries = [e for e in log.events if e.kind == EventKind.USER and e.actor == "strategy"]
    assert (
        len(retries) == 2
        and "reward 0" in retries[0].payload.text
        and "What is 0 + 1?" in retries[0].payload.text
    )


def test_reflexion_gives_up_after_max_reflections(tokenizer):
    harness = CalculatorHarness()
    [log] = run_episodes(
        scripted(["no", "still no"], tokenizer), [harness], Reflexion(max_reflections=1), tasks(1)
    )
    assert harness.resets == 2 and log.rewards() == {"harness": 0.0}
    assert log.metadata["termination"] == "agent_stop"


def test_memory_react_keeps_a_bounded_memory(tokenizer):
    harness = CalculatorHarness()
    replies = [
        call("memory_write", key="x", value="1"),
        call("memory_write", key="y", value="2"),
        call("memory_read", key="x"),
        call("memory_read"),
        "The answer is 1.",
    ]
    [log] = run_episodes(scripted(replies, tokenizer), [harness], MemoryReAct(memory_size=1), tasks(1))
    ops = [
        (e.payload.op, e.payload.key, e.payload.value) for e in log.events if e.kind == EventKind.MEMORY_OP
    ]
    assert ops == [
        ("write", "x", "1"),
        ("write", "y", "2"),
        ("delete", "x", "1"),
        ("read", "x", ""),
        ("read", "*", "y: 2"),
    ]
    results = [e.payload.content for e in log.events if e.kind == EventKind.TOOL_RESULT]
    assert results == ["Saved.", "Saved.", "No note under 'x'.", "y: 2"]
    assert [a.kind.value for a in harness.actions] == ["text"]  # memory calls never reached the harness
    assert {t["function"]["name"] for t in log.tools} == {"add", "memory_write", "memory_read"}
    assert log.tier == "full" and log.rewards() == {"harness": 1.0}
