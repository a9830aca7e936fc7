"""Events of one generation: spans partition the sampled tokens, the stop token goes to TURN_COMPLETE."""

from __future__ import annotations

from agenttune.agents.generated import turn_events
from agenttune.engines.scripted import ScriptedEngine
from agenttune.engines.tool_calls import format_tool_call

TEXT = (
    "<think>\nadd twice\n</think>\nAdding.\n"
    + format_tool_call("add", {"a": 1})
    + "\n"
    + format_tool_call("f", {})
)


def test_spans_partition_the_completion_in_text_order(tokenizer):
    [generation] = ScriptedEngine(lambda conversation, tools: TEXT, tokenizer).generate(
        [[{"role": "user", "content": "?"}]]
    )
    turn = turn_events(generation, step=3, call_ids=["c1", "c2"], offset=100, tokenizer=tokenizer)
    assert [e.kind.value for e in turn.generated] == ["reasoning", "text", "tool_call", "tool_call"]
    assert [e.payload.call_id for e in turn.generated[2:]] == ["c1", "c2"]
    spans = [e.span for e in turn.generated] + [turn.stop_span]
    assert spans[0][0] == 100 and spans[-1][1] == 100 + len(generation.completion_ids)
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:], strict=False))
    pieces = [tokenizer.decode(generation.completion_ids[a - 100 : b - 100]) for a, b in spans]
    assert "".join(pieces) == TEXT + "<|im_end|>"
    assert pieces[1].strip() == "Adding." and pieces[3].strip().startswith('<tool_call>\n{"name": "f"')
    assert all(len(e.logprobs) == e.span[1] - e.span[0] for e in turn.generated)


def test_light_events_have_no_spans_and_errors_come_from_the_parser():
    [generation] = ScriptedEngine(lambda conversation, tools: "<tool_call>oops").generate([[]])
    turn = turn_events(generation, step=0, call_ids=[])
    assert [(e.kind.value, e.span) for e in turn.generated] == [("text", None)]
    assert turn.errors[0].payload.source == "parser" and turn.stop_span is None
