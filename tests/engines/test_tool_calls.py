"""The tool-call parser: well-formed calls, malformed ones as errors (never exceptions), exact text coverage."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agenttune.engines.tool_calls import format_tool_call, parse_assistant_text


def test_several_calls_with_text_before_them_and_reasoning():
    text = (
        "<think>\nneed two sums\n</think>\nI will add twice.\n"
        + format_tool_call("add", {"a": 1, "b": 2})
        + "\n"
        + format_tool_call("add", {"a": 3, "b": 4})
    )
    parsed = parse_assistant_text(text)
    assert parsed.errors == []
    assert parsed.reasoning == "need two sums"
    assert parsed.content == "I will add twice."
    assert [(c.name, c.arguments) for c in parsed.tool_calls] == [
        ("add", {"a": 1, "b": 2}),
        ("add", {"a": 3, "b": 4}),
    ]
    message = parsed.to_message(["x", "y"])
    assert [c["id"] for c in message["tool_calls"]] == ["x", "y"]
    assert message["tool_calls"][1]["function"] == {"name": "add", "arguments": {"a": 3, "b": 4}}


def test_missing_arguments_means_none():
    [call] = parse_assistant_text('<tool_call>{"name": "now"}</tool_call>').tool_calls
    assert (call.name, call.arguments) == ("now", {})


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ("<tool_call>{not json}</tool_call>", "not valid JSON"),
        ('<tool_call>{"arguments": {}}</tool_call>', "no string 'name'"),
        ('<tool_call>{"name": 3}</tool_call>', "no string 'name'"),
        ('<tool_call>{"name": "f", "arguments": "a=1"}</tool_call>', "'arguments' must be a JSON object"),
        ("<tool_call>[1, 2]</tool_call>", "must be a JSON object"),
        ('<tool_call>{"name": "f", "arguments": {}}', "unclosed <tool_call> tag"),
    ],
)
def test_malformed_calls_become_errors_and_stay_as_text(body, problem):
    good = format_tool_call("ok", {})
    parsed = parse_assistant_text(f"Before. {good} {body}")
    [error] = parsed.errors
    assert problem in error.message and error.raw == body
    assert [c.name for c in parsed.tool_calls] == ["ok"]
    assert parsed.content == f"Before.\n{body}"


PIECES = [*"ab {}\"':,\n", '"name"', '"arguments"', "<tool_call>", "</tool_call>", "<think>", "</think>"]


@given(st.lists(st.sampled_from(PIECES), max_size=30).map("".join))
def test_any_text_parses_without_raising_into_segments_covering_it(text):
    parsed = parse_assistant_text(text)
    position = 0
    for segment in parsed.segments:
        assert segment.start == position and segment.end > segment.start
        position = segment.end
    assert position == len(text)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


@given(
    # no lone surrogates: the parser stores each as U+FFFD on purpose (tests/agents/test_model_output_never_raises.py)
    st.text(alphabet=st.characters(blacklist_characters="<", blacklist_categories=("Cs",)), max_size=20),
    st.lists(
        st.tuples(st.text(min_size=1, max_size=10), st.dictionaries(st.text(max_size=6), json_values)),
        max_size=3,
    ),
)
def test_formatted_calls_round_trip(prefix, calls):
    text = "\n".join([prefix, *(format_tool_call(name, arguments) for name, arguments in calls)])
    parsed = parse_assistant_text(text)
    assert parsed.errors == []
    assert [(c.name, c.arguments) for c in parsed.tool_calls] == calls
    assert parsed.content == prefix.strip()
