"""BFCL multi-turn tasks: records become StatefulTasks, and a real BFCL task runs through the harness.

The real-task tests need the ``bfcl-eval`` package (``pip install --no-deps bfcl-eval``) and skip without it.
"""

from __future__ import annotations

import ast
import inspect
import json
from importlib import resources
from typing import Any

import pytest

from agenttune.events.schema import Event, EventKind, TextPayload, ToolCallPayload
from agenttune.harness.bfcl import bfcl_task
from agenttune.harness.conformance import check_harness
from agenttune.harness.stateful_tools import StatefulTask, StatefulToolsHarness

NEEDS_BFCL = "needs the bfcl-eval package, which `make setup` installs (--no-deps)"


def test_a_bfcl_record_becomes_a_task():
    record = {
        "id": "multi_turn_demo_0",
        "question": [
            [{"role": "user", "content": "Open the door."}],
            [{"role": "user", "content": "Close it."}],
        ],
        "initial_config": {"Door": {"open": False}, "Clock": {"ignored": True}},
        "involved_classes": ["Door", "Clock"],
        "excluded_function": ["lock"],
    }
    docs = {"Door": [{"name": "open_door"}, {"name": "lock"}], "Clock": [{"name": "now"}]}
    task = bfcl_task(record, docs, stateless=["Clock"])
    assert task == StatefulTask(
        id="multi_turn_demo_0",
        turns=["Open the door.", "Close it."],
        classes=["Door", "Clock"],
        initial_state={"Door": {"open": False}},
        tool_specs=[{"name": "open_door"}, {"name": "lock"}, {"name": "now"}],
        excluded_tools=["lock"],
    )
    with pytest.raises(ValueError, match="turn 1 has no user message"):
        bfcl_task({**record, "question": [record["question"][0], []]}, docs)


def test_a_held_out_function_joins_the_tool_set_at_its_turn():
    """BFCL's miss_func: a function held out of the set until its (empty) turn, whose message lists its doc."""
    record = {
        "id": "multi_turn_miss_func_demo",
        "question": [[{"role": "user", "content": "Lock the door."}], []],
        "involved_classes": ["Door"],
        "missed_function": {"1": ["lock"]},
    }
    docs = {"Door": [{"name": "open_door"}, {"name": "lock", "description": "Lock it."}]}
    task = bfcl_task(record, docs, added_tools_message="New: {functions}")
    assert task.tools_added == {1: ["lock"]} and task.load_options == {}
    assert task.turns[1] == "New: [{'name': 'lock', 'description': 'Lock it.'}]"

    class Door:
        locked = False

        def open_door(self) -> str:
            """Open the door."""
            return "open"

        def lock(self) -> str:
            """Lock the door."""
            self.locked = True
            return "locked"

    harness = StatefulToolsHarness({"Door": Door}, loader=None)
    harness.reset(StatefulTask(id=task.id, turns=task.turns, classes=["Door"], tools_added=task.tools_added))
    assert [s["function"]["name"] for s in harness.tool_schemas()] == ["open_door"]
    early = harness.step(Event(payload=ToolCallPayload(call_id="c0", name="lock", arguments={})))
    assert early.observations[0].payload.is_error and not harness.state.instances["Door"].locked
    nxt = harness.step(Event(payload=TextPayload(text="I cannot lock it yet.")))
    assert [e.payload.text for e in nxt.observations if e.kind == EventKind.USER] == [task.turns[1]]
    assert [s["function"]["name"] for s in harness.tool_schemas()] == ["open_door", "lock"]
    harness.step(Event(payload=ToolCallPayload(call_id="c1", name="lock", arguments={})))
    assert harness.state.instances["Door"].locked
    with pytest.raises(ValueError, match="adds tools at turns"):
        StatefulTask(id="t", turns=["a"], classes=["Door"], tools_added={1: ["lock"]})
    with pytest.raises(ValueError, match="turn 1 adds functions but has a user message"):
        bfcl_task({**record, "question": [record["question"][0], record["question"][0]]}, docs)


def ground_truth(task_id: str) -> list[list[str]]:
    """The reference calls of one multi_turn_base task, per turn, from the installed package."""
    folder = resources.files("bfcl_eval") / "data" / "possible_answer"
    [answers] = [
        f
        for f in folder.iterdir()
        if f.name.startswith("BFCL_v") and f.name.endswith("_multi_turn_base.json")
    ]
    records = (json.loads(line) for line in answers.read_text().splitlines() if line.strip())
    return next(r["ground_truth"] for r in records if r["id"] == task_id)


def as_call(harness: StatefulToolsHarness, call_id: str, source: str) -> Event:
    """A reference call such as ``mv(source='a', destination='b')`` as a TOOL_CALL with named arguments."""
    expression = ast.parse(source, mode="eval").body
    name = expression.func.id
    [method] = [getattr(i, name) for i in harness.state.instances.values() if hasattr(i, name)]
    args = [ast.literal_eval(a) for a in expression.args]
    kwargs = {k.arg: ast.literal_eval(k.value) for k in expression.keywords}
    arguments = inspect.signature(method).bind(*args, **kwargs).arguments
    return Event(payload=ToolCallPayload(call_id=call_id, name=name, arguments=dict(arguments)))


def script(harness: StatefulToolsHarness, task: StatefulTask, turns: list[list[str]]) -> list[Event]:
    """Every turn's reference calls then a text reply (the harness must be reset on ``task``)."""
    actions = []
    for number, calls in enumerate(turns):
        actions += [as_call(harness, f"c{number}_{i}", source) for i, source in enumerate(calls)]
        actions.append(Event(payload=TextPayload(text=f"Turn {number} done.")))
    return actions


def first_base_task() -> tuple[StatefulToolsHarness, StatefulTask, list[Event]]:
    pytest.importorskip("bfcl_eval", reason=NEEDS_BFCL)
    from agenttune.harness.bfcl import bfcl_classes, load_bfcl_tasks

    task = next(t for t in load_bfcl_tasks("multi_turn_base") if t.id == "multi_turn_base_0")
    harness = StatefulToolsHarness(bfcl_classes())
    harness.reset(task)
    return harness, task, script(harness, task, ground_truth(task.id))


def folder(file_system: Any, *path: str) -> list[str]:
    directory = file_system.root
    for name in path:
        directory = directory.contents[name]
    return sorted(directory.contents)


def test_a_real_bfcl_task_runs_turn_by_turn_with_state_kept_between_calls():
    harness, task, actions = first_base_task()
    assert set(task.classes) == {"GorillaFileSystem", "TwitterAPI"} and len(task.turns) == 4
    names = {s["function"]["name"] for s in harness.tool_schemas()}
    assert {"cd", "mv", "grep", "post_tweet"} <= names and "cp" not in names  # cp is excluded by the task
    users = []
    for action in actions:
        result = harness.step(action)
        for event in result.observations:  # BFCL tools report failures as {"error": ...}, not by raising
            assert event.kind != EventKind.TOOL_RESULT or not (
                event.payload.is_error or '"error"' in event.payload.content
            )
        users += [e.payload.text for e in result.observations if e.kind == EventKind.USER]
    assert users == list(task.turns[1:]) and result.done and result.info["termination"] == "answer"
    file_system = harness.state.instances["GorillaFileSystem"]
    assert folder(file_system, "document", "temp") == ["final_report.pdf", "previous_report.pdf"]
    harness.reset(task)  # the next episode starts from the task's initial state
    assert folder(harness.state.instances["GorillaFileSystem"], "document") == [
        "final_report.pdf",
        "previous_report.pdf",
    ]


def test_a_real_bfcl_task_conforms():
    _, task, actions = first_base_task()
    from agenttune.harness.bfcl import bfcl_classes

    checks = check_harness(lambda: StatefulToolsHarness(bfcl_classes()), task, actions)
    assert checks == ["protocol", "events", "call_ids", "episode_done", "restore", "unknown_tool"]
