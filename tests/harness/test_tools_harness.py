"""harness=tools: tool calls run through the registry, a final message ends the episode, max_steps bounds it."""

import os

import pytest

from agenttune.config import HarnessConfig
from agenttune.events.schema import Event, EventKind, ReasoningPayload, TextPayload, ToolCallPayload
from agenttune.harness.protocol import EpisodeDone, Harness
from agenttune.harness.tools_harness import Question, ToolsHarness

TASK = Question(id="q1", question="What is 2 + 3?")


def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: The first integer.
        b: The second integer.
    """
    return a + b


def add_call(call_id: str = "c1") -> Event:
    return Event(payload=ToolCallPayload(call_id=call_id, name="add", arguments={"a": 2, "b": 3}))


def test_implements_the_protocol_and_opens_with_system_and_user():
    harness = ToolsHarness([add])
    assert isinstance(harness, Harness)
    assert [s["function"]["name"] for s in harness.tool_schemas()] == ["add"]
    opening = harness.reset(TASK)
    assert [e.kind for e in opening] == [EventKind.SYSTEM, EventKind.USER]
    assert opening[1].payload.text == TASK.question and "<answer>" in opening[0].payload.text


def test_tool_call_then_answer():
    harness = ToolsHarness([add])
    harness.reset(TASK)
    result = harness.step(add_call())
    assert not result.done
    assert [(e.payload.call_id, e.payload.content) for e in result.observations] == [("c1", "5")]
    assert result.info == {"steps": 1, "termination": "", "final_text": ""}
    final = harness.step(Event(payload=TextPayload(text="<answer>5</answer>")))
    assert final.done and final.observations == []
    assert final.info == {"steps": 2, "termination": "answer", "final_text": "<answer>5</answer>"}
    with pytest.raises(EpisodeDone):
        harness.step(add_call("c2"))


def test_max_steps_ends_the_episode():
    harness = ToolsHarness.from_config([add], HarnessConfig(name="tools", max_steps=2))
    harness.reset(TASK)
    assert not harness.step(add_call("c1")).done
    last = harness.step(add_call("c2"))
    assert last.done and last.info["termination"] == "max_steps"
    assert last.observations[0].payload.content == "5"


def test_other_action_kinds_come_back_as_error_events():
    harness = ToolsHarness([add])
    harness.reset(TASK)
    result = harness.step(Event(payload=ReasoningPayload(text="thinking")))
    assert not result.done
    assert [e.kind for e in result.observations] == [EventKind.ERROR]
    assert "reasoning" in result.observations[0].payload.message


def test_step_before_reset_is_a_usage_error():
    with pytest.raises(RuntimeError, match="reset"):
        ToolsHarness([add]).step(add_call())


def test_restore_reverts_steps_and_done():
    harness = ToolsHarness([add], max_steps=5)
    harness.reset(TASK)
    harness.step(add_call())
    snapshot = harness.snapshot()
    harness.step(Event(payload=TextPayload(text="<answer>5</answer>")))
    harness.restore(snapshot)
    assert harness.step(add_call("c2")).info == {"steps": 2, "termination": "", "final_text": ""}


def test_code_execution_adds_python_exec_which_runs_confined():
    from agenttune.harness.sandbox import confinement_problem

    plain = ToolsHarness.from_config([add], HarnessConfig(name="tools"))
    assert [s["function"]["name"] for s in plain.tool_schemas()] == ["add"]
    cfg = HarnessConfig(name="tools", code_execution=True, tool_timeout_s=10.0)
    harness = ToolsHarness.from_config([add], cfg)
    assert [s["function"]["name"] for s in harness.tool_schemas()] == ["add", "python_exec"]
    harness.reset(TASK)
    code = f"import os\nprint(os.getuid(), os.getppid(), os.path.exists('/proc/{os.getpid()}/environ'))"
    call = ToolCallPayload(call_id="c1", name="python_exec", arguments={"code": code})
    [result] = harness.step(Event(payload=call)).observations
    if confinement_problem() is None:
        assert (result.payload.content, result.payload.is_error) == ("65534 0 False\n", False)
    else:  # fails closed: an error result, nothing ran
        assert result.payload.is_error and "isolation is required" in result.payload.content
