"""Model output never raises: any generated string becomes events, or parser ERROR events and the format penalty,
that the tools answer and an EventLog stores and reads back.

``hostile_outputs`` generates the outputs a careless or broken model writes: integers past Python's 4,300-digit
limit, nesting past the recursion limit, lone surrogates (escaped in JSON and raw in the text), NaN and Infinity,
floods of tags, random bytes decoded as a byte-level tokenizer decodes them, random token ids decoded by the
project's tokenizer, and well-formed calls with hostile argument values. The seeded test runs 1,000 of them
(10,000 in the slow suite) through the parser, the tool registry and the EventLog encoder and decoder.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Iterator

import pytest

from agenttune.agents import ReAct, run_episodes
from agenttune.agents.generated import turn_events
from agenttune.engines.base import Generation
from agenttune.engines.scripted import ScriptedEngine
from agenttune.engines.tool_calls import MAX_DEPTH, format_tool_call, parse_assistant_text
from agenttune.events import EventLogWriter, load_jsonl
from agenttune.events.schema import Event, EventKind, EventLog, EventLogError, ToolCallPayload, UserPayload
from agenttune.harness.tools import ToolRegistry
from agenttune.harness.tools_harness import Question, ToolsHarness
from agenttune.rewards.format import MALFORMED, tool_call_format


def lookup(key: str, limit: int = 3) -> str:
    """Look a key up.

    Args:
        key: What to look up.
        limit: How many hits to return.
    """
    return f"{key[:20]} x{limit}"


def _deep(rng: random.Random) -> str:
    depth = rng.choice([MAX_DEPTH + 1, 999, 1001, 5000])
    opener, closer = rng.choice([("[", "]"), ('{"a":', "}")])
    return opener * depth + "1" + closer * depth


def _value(rng: random.Random) -> str:
    """A JSON value (as text) that is hostile more often than not."""
    return rng.choice(
        [
            lambda: "9" * rng.choice([20, 4300, 4301, 10_000]),
            lambda: "-" + "1" * rng.randint(1, 5000),
            lambda: rng.choice(["NaN", "Infinity", "-Infinity", "1e999", "-1e400", "1e-400"]),
            lambda: rng.choice(['"\\ud83d"', '"\\udc00x"', '"ok \\ud83d\\ude00"', '"\\u0000"']),
            lambda: _deep(rng),
            lambda: json.dumps(rng.random()),
            lambda: json.dumps("".join(chr(rng.randint(32, 0x2FFF)) for _ in range(rng.randint(0, 30)))),
        ]
    )()


def _random_bytes_decoded(rng: random.Random) -> str:
    data = bytes(rng.randrange(256) for _ in range(rng.randint(0, 200)))
    return data.decode("utf-8", errors=rng.choice(["replace", "surrogateescape", "ignore"]))


def _call(rng: random.Random) -> str:
    name = rng.choice(['"lookup"', '"nope"', "3", '"\\ud800"', "null"])
    arguments = rng.choice(
        [
            lambda: f'{{"key": {_value(rng)}}}',
            lambda: f'{{"key": "k", "limit": {_value(rng)}}}',
            lambda: f'{{"key": "k", "extra": {_value(rng)}}}',
            lambda: _value(rng),
        ]
    )()
    return f'<tool_call>{{"name": {name}, "arguments": {arguments}}}</tool_call>'


def _output(rng: random.Random, tokenizer) -> str:
    pieces = [
        lambda: _call(rng),
        lambda: format_tool_call("lookup", {"key": "fees", "limit": rng.randint(-5, 5)}),
        lambda: "<tool_call>" * rng.randint(1, 300) + "</tool_call>" * rng.randint(0, 300),
        lambda: rng.choice(["<think>", "</think>", "<tool_call>", "</tool_call>", "{", "}", '"', "\n"]),
        lambda: _random_bytes_decoded(rng),
        lambda: "text \ud83d more \udfff",
        lambda: f"<tool_call>{_deep(rng)}</tool_call>",
        lambda: "<think>" + _random_bytes_decoded(rng) + "</think>",
        lambda: tokenizer.decode([rng.randrange(len(tokenizer)) for _ in range(rng.randint(1, 60))]),
    ]
    return "".join(rng.choice(pieces)() for _ in range(rng.randint(1, 4)))


def hostile_outputs(seed: int, count: int, tokenizer) -> Iterator[str]:
    """``count`` outputs; ``tokenizer`` decodes random token ids (special tokens included) as a model's would be."""
    rng = random.Random(seed)
    for _ in range(count):
        yield _output(rng, tokenizer)


def through_parse_tools_and_log(text: str, registry: ToolRegistry) -> EventLog:
    """One generation through everything that reads model output; returns the log as read back from JSON."""
    generation = Generation.from_text(text)
    call_ids = [f"call_0_{i}" for i in range(len(generation.parsed.tool_calls))]
    turn = turn_events(generation, 0, call_ids)
    results = [registry.execute(event) for event in turn.generated if event.kind == EventKind.TOOL_CALL]
    question = Event(payload=UserPayload(text="q"), actor="user")
    log = EventLog(id="fuzz", events=[question, *turn.generated, *turn.errors, *results])
    back = EventLog.from_json(log.to_json())
    assert [e.kind for e in back.events] == [e.kind for e in log.events]
    if generation.parse_errors:
        assert tool_call_format([text]) == [MALFORMED]  # the penalty
        assert sum(e.kind == EventKind.ERROR for e in back.events) == len(generation.parse_errors)
    return back


@pytest.mark.parametrize("count", [1_000, pytest.param(10_000, marks=pytest.mark.slow)])
def test_hostile_outputs_become_events_and_logs_without_an_exception(count, tokenizer):
    registry = ToolRegistry([lookup], timeout_s=5)
    kinds: dict[str, int] = {}
    for text in hostile_outputs(seed=19, count=count, tokenizer=tokenizer):
        for event in through_parse_tools_and_log(text, registry).events:
            kinds[event.kind.value] = kinds.get(event.kind.value, 0) + 1
    metrics = registry.metrics()
    # the generator reaches every path: valid calls that ran, rejected arguments, unknown tools, parser errors
    assert kinds["tool_result"] == metrics["tools/calls"] > count / 10
    assert (
        metrics["tools/errors/bad_arguments"] > count / 100
        and metrics["tools/errors/unknown_tool"] > count / 100
    )
    assert kinds["error"] > count / 2 and kinds["tool_call"] > count / 10


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ('{"key": ' + "9" * 4301 + "}", "Exceeds the limit (4300 digits)"),
        ('{"key": ' + "[" * 5000 + "]" * 5000 + "}", "recursion"),
        ('{"key": ' + "[" * MAX_DEPTH + "]" * MAX_DEPTH + "}", f"nests deeper than {MAX_DEPTH} levels"),
        ('{"key": "\\ud83d"}', "lone UTF-16 surrogate"),
        ('{"key": "k", "limit": NaN}', "NaN is not a JSON number"),
        ('{"key": "k", "limit": -Infinity}', "-Infinity is not a JSON number"),
        ('{"key": "k", "limit": 1e999}', "the number inf is not finite"),
    ],
)
def test_each_named_hostile_argument_is_a_parse_error_not_a_call(arguments, problem):
    text = f'<tool_call>{{"name": "lookup", "arguments": {arguments}}}</tool_call>'
    parsed = parse_assistant_text(text)
    [error] = parsed.errors
    assert problem in error.message and not parsed.tool_calls
    log = through_parse_tools_and_log(text, ToolRegistry([lookup]))
    assert [e.kind for e in log.events] == [EventKind.USER, EventKind.TEXT, EventKind.ERROR]


def test_non_finite_numbers_from_any_source_are_bad_arguments_not_null():
    registry = ToolRegistry([lookup])
    for value in (math.nan, math.inf):
        call = Event(
            payload=ToolCallPayload(call_id="c", name="lookup", arguments={"key": "k", "limit": value})
        )
        result = registry.execute(call).payload
        assert result.is_error and "should be a finite number" in result.content
    assert registry.metrics()["tools/errors/bad_arguments"] == 2


def test_lone_surrogates_anywhere_in_a_log_are_stored_as_replacement_characters():
    log = EventLog(id="s", events=[Event(payload=UserPayload(text="a\ud83d b"), actor="user")])
    assert EventLog.from_json(log.to_json()).events[0].payload.text == "a\ufffd b"


def test_json_nested_past_the_recursion_limit_is_an_eventlog_error():
    line = '{"id": "x", "metadata": {"a": ' + "[" * 100_000 + "]" * 100_000 + "}}"
    with pytest.raises(EventLogError, match="nests too deeply"):
        EventLog.from_json(line)


def test_one_hostile_generation_does_not_cost_the_batch_any_episode(tmp_path, tokenizer):
    outputs = [
        *hostile_outputs(seed=7, count=4, tokenizer=tokenizer),
        format_tool_call("lookup", '{"key": "k", "limit": ' + "9" * 5000 + "}"),
    ]
    replies = iter(outputs + ["<answer>done</answer>"] * 20)
    engine = ScriptedEngine(lambda conversation, tools: next(replies))
    path = tmp_path / "batch.jsonl"
    with EventLogWriter(path) as writer:
        logs = run_episodes(
            engine,
            lambda: ToolsHarness([lookup], max_steps=3),
            ReAct(max_turns=3),
            [Question(id=str(i), question="q") for i in range(5)],
            writer=writer.write,
        )
    assert sorted(log.task_id for log in load_jsonl(path)) == [log.task_id for log in logs] == list("01234")
