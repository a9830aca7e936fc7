"""harness=stateful_tools: tools are methods of stateful objects built per task, over several user turns."""

from __future__ import annotations

import doctest
import importlib
import os
from typing import Any

import pytest

from agenttune.agents import ReAct, run_episodes
from agenttune.config import HarnessConfig
from agenttune.engines.scripted import ScriptedEngine
from agenttune.events.schema import Event, EventKind, TextPayload, ToolCallPayload
from agenttune.harness.conformance import check_harness
from agenttune.harness.protocol import EpisodeDone, Harness
from agenttune.harness.stateful_tools import StatefulTask, StatefulToolsHarness
from tests.conftest import compose_config

AUDIT: list[str] = []  # a module global the ``Ledger.audit`` tool appends to


class FileSystem:
    """A one-folder file system: file name -> content."""

    def __init__(self) -> None:
        self.files: dict[str, str] = {}

    def _load_scenario(self, config: dict[str, Any]) -> None:
        self.files = config["files"]

    def ls(self) -> list[str]:
        """List the files."""
        return sorted(self.files)

    def write(self, name: str, content: str) -> str:
        """Write a file.

        Args:
            name: The file's name.
            content: What the file holds.
        """
        self.files[name] = content
        return f"wrote {name}"

    def cat(self, name: str) -> str:
        """Read a file.

        Args:
            name: The file's name.
        """
        return self.files[name]


class Ledger:
    """A balance and its history."""

    def __init__(self) -> None:
        self.balance = 0
        self.history: list[int] = []

    def _load_scenario(self, config: dict[str, Any]) -> None:
        self.balance = config.get("balance", 0)

    def deposit(self, amount: int) -> int:
        """Add money to the balance.

        Args:
            amount: How much to add.
        """
        self.balance += amount
        self.history.append(amount)
        return self.balance

    def audit(self, note: str) -> str:
        """Record a note in the audit trail, the process environment and the working folder.

        Args:
            note: The note.
        """
        AUDIT.append(note)
        os.environ["LEDGER_NOTE"] = note
        os.chdir("/")
        return f"{len(AUDIT)} notes"


class Counter:
    """Built from keyword arguments, for ``loader=None``."""

    def __init__(self, start: int = 0) -> None:
        self.value = start

    def increment(self) -> int:
        """Add one."""
        self.value += 1
        return self.value


CLASSES = {"FileSystem": FileSystem, "Ledger": Ledger}


def make_task(**changes: Any) -> StatefulTask:
    fields = {
        "id": "t1",
        "turns": ["Write a note.", "Deposit 5.", "What is in the folder?"],
        "classes": ["FileSystem", "Ledger"],
        "initial_state": {"FileSystem": {"files": {"a.txt": "alpha"}}, "Ledger": {"balance": 10}},
    }
    return StatefulTask(**{**fields, **changes})


def call(call_id: str, tool: str, **arguments: Any) -> Event:
    return Event(payload=ToolCallPayload(call_id=call_id, name=tool, arguments=arguments))


def reply(text: str) -> Event:
    return Event(payload=TextPayload(text=text))


def test_reset_builds_fresh_instances_from_the_initial_state_and_offers_their_methods():
    harness = StatefulToolsHarness(CLASSES)
    assert isinstance(harness, Harness) and harness.tool_schemas() == []
    task = make_task()
    opening = harness.reset(task)
    assert [(e.kind, e.actor) for e in opening] == [(EventKind.SYSTEM, "system"), (EventKind.USER, "user")]
    assert opening[1].payload.text == "Write a note."
    names = [s["function"]["name"] for s in harness.tool_schemas()]
    assert names == ["ls", "write", "cat", "deposit", "audit"]
    harness.step(call("c1", "write", name="b.txt", content="beta"))
    assert harness.state.instances["FileSystem"].files == {"a.txt": "alpha", "b.txt": "beta"}
    assert task.initial_state["FileSystem"]["files"] == {"a.txt": "alpha"}  # the task's state was copied
    harness.reset(task)
    assert harness.state.instances["FileSystem"].files == {"a.txt": "alpha"}
    assert harness.state.instances["Ledger"].balance == 10


def test_the_tool_set_is_per_task_and_schemas_come_from_json_specs_when_given():
    harness = StatefulToolsHarness(
        {"FileSystem": FileSystem, "Ledger": f"{__name__}.Ledger"}  # a class by import path
    )
    harness.reset(make_task(classes=["Ledger"], initial_state={}, excluded_tools=["audit"]))
    assert [s["function"]["name"] for s in harness.tool_schemas()] == ["deposit"]
    spec = {  # a bare BFCL-style function doc: Python type names, a response schema
        "name": "deposit",
        "description": "Deposit money.",
        "parameters": {"type": "dict", "properties": {"amount": {"type": "float"}}, "required": ["amount"]},
        "response": {"type": "dict", "properties": {}},
    }
    harness.reset(make_task(classes=["Ledger"], initial_state={}, tool_specs=[spec]))
    [schema] = harness.tool_schemas()
    assert schema["function"] == {
        "name": "deposit",
        "description": "Deposit money.",
        "parameters": {
            "type": "object",
            "properties": {"amount": {"type": "number"}},
            "required": ["amount"],
        },
    }
    assert harness.step(call("c1", "deposit", amount=2.5)).observations[0].payload.content == "2.5"
    bad = harness.step(call("c2", "deposit", amount="lots")).observations[0].payload
    assert bad.is_error and "should be number" in bad.content
    with pytest.raises(ValueError, match="names no public method"):
        harness.reset(make_task(tool_specs=[{**spec, "name": "withdraw"}]))
    with pytest.raises(ValueError, match="unknown tool class 'Bank'"):
        harness.reset(make_task(classes=["Bank"], initial_state={}))


def test_constructor_keywords_load_the_state_when_there_is_no_loader():
    harness = StatefulToolsHarness({"Counter": Counter}, loader=None)
    harness.reset(
        StatefulTask(id="c", turns=["Count."], classes=["Counter"], initial_state={"Counter": {"start": 7}})
    )
    assert harness.step(call("c1", "increment")).observations[0].payload.content == "8"


def test_a_text_reply_ends_the_user_turn_and_the_next_turn_comes_back_as_a_user_event():
    harness = StatefulToolsHarness(CLASSES)
    harness.reset(make_task())
    harness.step(call("c1", "write", name="n.txt", content="note"))
    first = harness.step(reply("Done."))
    assert not first.done
    assert [(e.kind, e.payload.text) for e in first.observations] == [(EventKind.USER, "Deposit 5.")]
    assert harness.step(call("c2", "deposit", amount=5)).observations[0].payload.content == "15"
    harness.step(reply("Deposited."))
    assert harness.step(call("c3", "ls")).observations[0].payload.content == '["a.txt", "n.txt"]'
    last = harness.step(reply("a.txt and n.txt"))
    assert last.done and last.observations == []
    assert last.info == {
        "turn": 3,
        "turns": 3,
        "steps": 6,
        "turn_steps": 0,
        "turn_endings": ["answer", "answer", "answer"],
        "termination": "answer",
        "final_text": "a.txt and n.txt",
    }
    with pytest.raises(EpisodeDone):
        harness.step(reply("again"))


def test_the_config_option_sets_the_budget_per_user_turn():
    cfg = compose_config(["harness=stateful_tools"]).harness
    harness = StatefulToolsHarness.from_config(CLASSES, cfg)
    assert (
        (harness.max_steps_per_turn, harness.tool_timeout_s)
        == (cfg.max_steps, cfg.tool_timeout_s)
        == (20, 10.0)
    )


def test_the_step_budget_is_per_user_turn():
    harness = StatefulToolsHarness.from_config(CLASSES, HarnessConfig(name="stateful_tools", max_steps=2))
    harness.reset(make_task(turns=["Deposit twice.", "Deposit twice again."]))
    assert not harness.step(call("c1", "deposit", amount=1)).observations[1:]
    over = harness.step(call("c2", "deposit", amount=1))
    assert [e.kind for e in over.observations] == [EventKind.TOOL_RESULT, EventKind.USER]
    assert not over.done and over.info["turn_endings"] == ["max_steps"] and over.info["turn_steps"] == 0
    harness.step(call("c3", "deposit", amount=1))
    last = harness.step(call("c4", "deposit", amount=1))
    assert last.done and last.info["termination"] == "max_steps"
    assert harness.state.instances["Ledger"].balance == 14


def test_snapshot_and_restore_include_the_tools_state():
    harness = StatefulToolsHarness(CLASSES)
    harness.reset(make_task())
    harness.step(call("c1", "deposit", amount=5))
    saved = harness.snapshot()
    harness.step(call("c2", "deposit", amount=100))
    harness.step(call("c3", "write", name="x", content="y"))
    harness.restore(saved)
    ledger = harness.state.instances["Ledger"]
    assert (ledger.balance, ledger.history) == (15, [5])
    assert harness.step(call("c4", "deposit", amount=1)).observations[0].payload.content == "16"
    assert "x" not in harness.state.instances["FileSystem"].files
    harness.restore(saved)  # the snapshot is still usable
    assert harness.state.instances["Ledger"].balance == 15


def test_the_harness_conforms():
    actions = [
        call("c1", "write", name="b", content="beta"),
        reply("Written."),
        call("c2", "deposit", amount=5),
        call("c3", "audit", note="checked"),
        reply("Deposited."),
        call("c4", "cat", name="b"),
        reply("beta"),
    ]
    checks = check_harness(lambda: StatefulToolsHarness(CLASSES), make_task(), actions)
    assert checks == ["protocol", "events", "call_ids", "episode_done", "restore", "unknown_tool"]


def test_process_global_state_a_tool_changes_does_not_leak_into_the_next_episode(monkeypatch):
    monkeypatch.delenv("LEDGER_NOTE", raising=False)
    cwd = os.getcwd()
    harness = StatefulToolsHarness(CLASSES)
    harness.reset(make_task(turns=["Audit."]))
    harness.step(call("c1", "audit", note="first"))
    assert (AUDIT, os.environ["LEDGER_NOTE"], os.getcwd()) == (["first"], "first", "/")
    assert harness.step(reply("Audited.")).done  # the episode ends: its changes are undone
    assert (AUDIT, "LEDGER_NOTE" in os.environ, os.getcwd()) == ([], False, cwd)

    harness.reset(make_task(turns=["Audit."]))
    harness.step(call("c2", "audit", note="abandoned"))  # an episode that never ends ...
    harness.reset(make_task(turns=["Audit."]))  # ... is undone by the next reset
    assert (AUDIT, "LEDGER_NOTE" in os.environ, os.getcwd()) == ([], False, cwd)
    assert harness.step(call("c3", "audit", note="again")).observations[0].payload.content == "1 notes"
    harness.step(reply("ok"))
    assert AUDIT == []


def test_multi_turn_episode_through_the_episode_loop(tokenizer):
    """The agent loop keeps going after a text reply the harness answers with the next user turn."""

    def policy(conversation: list[dict[str, Any]], tools: Any) -> dict[str, Any] | str:
        last = conversation[-1]
        if last["role"] == "user" and "Deposit" in last["content"]:
            return {
                "content": "",
                "tool_calls": [{"function": {"name": "deposit", "arguments": {"amount": 5}}}],
            }
        return "Done." if last["role"] != "tool" else f"Balance {last['content']}."

    task = make_task(turns=["Deposit 5.", "Say hello."])
    [log] = run_episodes(
        ScriptedEngine(policy, tokenizer), lambda: StatefulToolsHarness(CLASSES), ReAct(), [task]
    )
    users = [e.payload.text for e in log.events if e.kind == EventKind.USER]
    texts = [e.payload.text for e in log.events if e.kind == EventKind.TEXT]
    assert users == ["Deposit 5.", "Say hello."]
    assert texts[-2:] == ["Balance 15.", "Done."]
    assert log.metadata["termination"] == "agent_stop" and log.tier == "full"


@pytest.mark.parametrize("name", ["agenttune.harness.tool_specs", "agenttune.harness.process_state"])
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0
