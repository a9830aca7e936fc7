"""The format reward tells well-formed, malformed and missing tool calls apart."""

from agenttune.rewards.format import MALFORMED, MISSING, WELL_FORMED, tool_call_format

GOOD = '<tool_call>{"name": "search", "arguments": {"query": "termination notice"}}</tool_call>'


def test_three_cases_get_three_different_values():
    scores = tool_call_format(
        [GOOD, '<tool_call>{"name": "search", "arguments": "x"}</tool_call>', "No call here."]
    )
    assert scores == [WELL_FORMED, MALFORMED, MISSING]
    assert len(set(scores)) == 3


def test_any_malformed_call_beats_good_ones_and_unclosed_tags_are_malformed():
    assert tool_call_format([GOOD + "<tool_call>{not json}</tool_call>"]) == [MALFORMED]
    assert tool_call_format(['<tool_call>{"name": "search"']) == [MALFORMED]
    assert tool_call_format(['{"name": "search", "arguments": {}}']) == [MISSING]


def test_conversations_count_every_assistant_message_and_parsed_calls():
    parsed = {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"type": "function", "function": {"name": "search"}}],
    }
    tool = {"role": "tool", "content": "<tool_call>{broken</tool_call>"}
    final = {"role": "assistant", "content": "<answer>30 days</answer>"}
    assert tool_call_format([[parsed, tool, final]]) == [WELL_FORMED]
    assert tool_call_format([[final]]) == [MISSING]
    assert tool_call_format([[{"role": "assistant", "content": "<tool_call>[1]</tool_call>"}, final]]) == [
        MALFORMED
    ]


def test_values_are_configurable_and_columns_ignored():
    assert tool_call_format([GOOD, "x"], well_formed=0.5, missing=-0.5, answer=["a", "b"]) == [0.5, -0.5]
