"""A tool gets a copy of its call's arguments, and validate catches a logged call that no longer matches its tokens."""

from __future__ import annotations

from typing import Any

import pytest

from agenttune.agents import ReAct, run_episodes
from agenttune.engines.scripted import ScriptedEngine
from agenttune.engines.tool_calls import format_tool_call
from agenttune.events import write_jsonl
from agenttune.events.cli import main
from agenttune.events.schema import Event, EventKind, EventLog, EventLogError, ToolCallPayload, UserPayload
from agenttune.events.validation import check_call_text
from agenttune.harness.stateful_tools import StatefulTask, StatefulToolsHarness
from agenttune.harness.tools import ToolRegistry


class Keeper:
    """Keeps the list it was given and changes it on a later call (what copying the arguments protects against)."""

    def __init__(self) -> None:
        self.items: list[str] = []

    def remember(self, items: list[str]) -> int:
        """Remember a list of items.

        Args:
            items: The items.
        """
        self.items = items
        return len(items)

    def add(self, item: str) -> int:
        """Add an item to the remembered list.

        Args:
            item: The item.
        """
        self.items.append(item)
        return len(self.items)


def remember_call() -> Event:
    return Event(payload=ToolCallPayload(call_id="c1", name="remember", arguments={"items": ["a", "b"]}))


def full_log(tokenizer: Any, call: Event) -> EventLog:
    """A full log of one user message and the agent's tool call, spans over the call's written tokens."""
    prompt = tokenizer.encode("Remember a and b.\n", add_special_tokens=False)
    written = tokenizer.encode(format_tool_call("remember", {"items": ["a", "b"]}), add_special_tokens=False)
    span = (len(prompt), len(prompt) + len(written))
    user = Event(payload=UserPayload(text="Remember a and b."), actor="user", span=(0, len(prompt)))
    agent_call = Event(payload=call.payload, span=span, logprobs=[0.0] * len(written))
    return EventLog(id="keeper", tier="full", events=[user, agent_call], token_ids=prompt + written)


def test_without_a_copy_a_kept_argument_rewrites_the_logged_call_and_validate_notices(tokenizer):
    call = remember_call()
    keeper = Keeper()
    keeper.remember(**call.payload.arguments)  # what executing a call without copying its arguments did
    keeper.add("c")
    assert call.payload.arguments == {"items": ["a", "b", "c"]}  # the record changed after the fact
    log = full_log(tokenizer, call)  # the structural rules do not see it
    with pytest.raises(
        EventLogError, match=r'event 1 \(tool_call\) has arguments \{"items": \["a", "b", "c"\]\}'
    ):
        check_call_text(log, tokenizer)


def test_the_registry_hands_the_tool_a_copy_so_the_logged_call_stays_as_generated(tokenizer):
    keeper = Keeper()
    registry = ToolRegistry([keeper.remember, keeper.add])
    call = remember_call()
    assert registry.execute(call).payload.content == "2"
    registry.execute(Event(payload=ToolCallPayload(call_id="c2", name="add", arguments={"item": "c"})))
    assert keeper.items == ["a", "b", "c"] and call.payload.arguments == {"items": ["a", "b"]}
    check_call_text(full_log(tokenizer, call), tokenizer)


def test_validate_with_the_tokenizer_checks_episode_logs_and_names_the_bad_one(tokenizer, tmp_path, capsys):
    replies = iter(
        [
            {
                "content": "",
                "tool_calls": [{"function": {"name": "remember", "arguments": {"items": ["a", "b"]}}}],
            },
            {"content": "", "tool_calls": [{"function": {"name": "add", "arguments": {"item": "c"}}}]},
            "Remembered a, b and c.",
        ]
    )
    task = StatefulTask(id="k", turns=["Remember a and b, then c."], classes=["Keeper"])
    engine = ScriptedEngine(lambda conversation, tools: next(replies), tokenizer)
    [log] = run_episodes(engine, lambda: StatefulToolsHarness({"Keeper": Keeper}), ReAct(), [task])
    first = next(e for e in log.events if e.kind == EventKind.TOOL_CALL)
    assert log.tier == "full" and first.payload.arguments == {"items": ["a", "b"]}
    check_call_text(log, tokenizer)

    folder = tmp_path / "tokenizer"
    tokenizer.save_pretrained(folder)
    good, bad = tmp_path / "good.jsonl", tmp_path / "bad.jsonl"
    write_jsonl([log], good)
    first.payload.arguments["items"].append("c")  # the log as a tool keeping the list would have left it
    write_jsonl([log], bad)
    assert main(["validate", str(good), "--tokenizer", str(folder)]) == 0
    assert main(["validate", str(bad)]) == 0  # without the tokenizer nothing can tell
    capsys.readouterr()
    assert main(["validate", str(bad), "--tokenizer", str(folder)]) == 1
    problem = capsys.readouterr().err
    assert f"bad.jsonl: log {log.id!r}: event 2 (tool_call) has arguments" in problem
