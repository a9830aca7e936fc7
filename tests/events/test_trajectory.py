"""Trajectory metrics on hand-built logs: argument accuracy, redundant calls, loops, recovery after errors."""

from __future__ import annotations

import json

from agenttune.events import write_jsonl
from agenttune.events.cli import main
from agenttune.events.schema import (
    ErrorPayload,
    Event,
    EventLog,
    TextPayload,
    ToolCallPayload,
    ToolResultPayload,
    UserPayload,
)
from agenttune.events.trajectory import count_loops, summarize, trajectory_metrics
from tests.events.builders import SEARCH_TOOL, search_episode


def episode(calls: list[tuple[str, dict, bool]], *, tools=(SEARCH_TOOL,), extra=(), log_id="t") -> EventLog:
    """A user question, then each (tool, arguments, result is error) as a call and its result, then ``extra``."""
    events = [Event(payload=UserPayload(text="q"), actor="user")]
    for step, (name, arguments, failed) in enumerate(calls):
        call_id = f"c{step}"
        events.append(
            Event(payload=ToolCallPayload(call_id=call_id, name=name, arguments=arguments), step=step)
        )
        events.append(
            Event(
                payload=ToolResultPayload(call_id=call_id, name=name, content="r", is_error=failed),
                actor="tool",
                step=step,
            )
        )
    return EventLog(id=log_id, tools=list(tools), events=events + list(extra))


def test_argument_accuracy_checks_tool_names_and_schemas():
    log = episode(
        [
            ("search", {"query": "law"}, False),
            ("search", {"q": "law"}, True),  # wrong argument name, missing required query
            ("search", {"query": 3}, True),  # wrong type
            ("lookup", {"query": "x"}, True),  # a tool the log does not offer
        ]
    )
    metrics = trajectory_metrics(log)
    assert metrics.tool_calls == 4 and metrics.valid_calls == 1
    assert metrics.tool_argument_accuracy == 0.25


def test_malformed_calls_count_as_wrong_and_logs_without_tools_are_not_scored():
    parser_error = Event(payload=ErrorPayload(source="parser", message="bad json"), actor="system", step=1)
    log = episode([("search", {"query": "law"}, False)], extra=[parser_error])
    assert trajectory_metrics(log).tool_argument_accuracy == 0.5
    assert (
        trajectory_metrics(episode([("search", {"query": "x"}, False)], tools=())).tool_argument_accuracy
        is None
    )


def test_redundant_calls_are_exact_repeats():
    log = episode(
        [
            ("search", {"query": "a"}, False),
            ("search", {"query": "b"}, False),
            ("search", {"query": "a"}, False),
        ]
    )
    assert trajectory_metrics(log).redundant_calls == 1
    assert trajectory_metrics(log).loops == 0


def test_loops_are_blocks_repeated_three_times_in_a_row():
    assert count_loops(list("AAA")) == 1
    assert count_loops(list("AA")) == 0
    assert count_loops(list("ABABAB")) == 1
    assert count_loops(list("ABCABCABCD")) == 1
    assert count_loops(list("AAAXBBB")) == 2
    assert count_loops(list("ABAB")) == 0
    looping = episode([("search", {"query": "a"}, False)] * 4)
    assert trajectory_metrics(looping).loops == 1 and trajectory_metrics(looping).redundant_calls == 3


def test_recovery_needs_a_later_successful_tool_result():
    recovered = episode([("search", {"query": 1}, True), ("search", {"query": "a"}, False)])
    stuck = episode(
        [("search", {"query": 1}, True)],
        extra=[Event(payload=TextPayload(text="I give up"), step=1)],
    )
    assert (trajectory_metrics(recovered).errors, trajectory_metrics(recovered).recovered) == (1, 1)
    assert (trajectory_metrics(stuck).errors, trajectory_metrics(stuck).recovered) == (1, 0)
    summary = summarize([recovered, stuck])
    assert summary["errors"] == 2 and summary["recovery_rate"] == 0.5


def test_summary_rates_over_logs():
    good = search_episode(log_id="g")
    looping = episode([("search", {"query": "a"}, False)] * 3, log_id="l")
    summary = summarize([good, looping])
    assert summary["logs"] == 2 and summary["tool_calls"] == 4
    assert summary["tool_argument_accuracy"] == 1.0
    assert summary["redundant_calls"] == 2 and summary["redundant_call_rate"] == 0.5
    assert summary["loops"] == 1 and summary["loop_rate"] == 0.5
    assert summary["recovery_rate"] is None  # no errors


def test_stats_cli_prints_trajectory_metrics(tmp_path, capsys):
    path = tmp_path / "a.jsonl"
    write_jsonl([search_episode(log_id="1"), episode([("search", {"q": 1}, True)] * 3, log_id="2")], path)
    assert main(["stats", str(path)]) == 0
    trajectory = json.loads(capsys.readouterr().out)["trajectory"]
    assert trajectory["tool_argument_accuracy"] == 0.25
    assert trajectory["loop_rate"] == 0.5 and trajectory["recovery_rate"] == 0.0
