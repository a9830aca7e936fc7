"""The episode loop: events, termination reasons, batching, failures, writer, and full-tier token exactness."""

from __future__ import annotations

import pytest

from agenttune.agents import ReAct, run_episodes
from agenttune.agents.toy import CalculatorHarness, calculator_policy, tasks
from agenttune.engines.scripted import ScriptedEngine
from agenttune.engines.templates import encode, render
from agenttune.engines.transformers_engine import TransformersEngine
from agenttune.events import EventLogWriter, load_jsonl
from agenttune.events.projections.messages import chat_messages
from agenttune.events.schema import EventKind, EventLog


def kinds(log: EventLog) -> list[str]:
    return [e.kind.value for e in log.events]


def generated_mask(log: EventLog) -> list[int]:
    """1 on tokens inside spans that carry logprobs (what the policy sampled), else 0."""
    mask = [0] * len(log.token_ids)
    for event in log.events:
        if event.span is not None and event.logprobs is not None:
            mask[event.span[0] : event.span[1]] = [1] * (event.span[1] - event.span[0])
    return mask


def test_react_episode_events_reward_and_reasons(tokenizer):
    engine = ScriptedEngine(calculator_policy, tokenizer)
    [log] = run_episodes(engine, CalculatorHarness, ReAct(max_turns=4), tasks(2)[1:])
    assert kinds(log) == [
        "system", "user",
        "text", "tool_call", "tool_result", "turn_complete",
        "text", "reward", "turn_complete",
    ]  # fmt: skip
    call, result = log.events[3].payload, log.events[4].payload
    assert (call.name, call.arguments, result.call_id, result.content) == (
        "add",
        {"a": 1, "b": 2},
        call.call_id,
        "3",
    )
    assert [e.payload.reason for e in log.events if e.kind == EventKind.TURN_COMPLETE] == [
        "end_of_turn",
        "agent_stop",
    ]
    assert log.rewards() == {"harness": 1.0}
    assert (log.tier, log.task_id, log.metadata["termination"]) == ("full", "t1", "agent_stop")


def test_full_log_tokens_equal_the_rerendered_conversation_and_mask_only_generated(tokenizer):
    engine = ScriptedEngine(calculator_policy, tokenizer)
    [log] = run_episodes(engine, CalculatorHarness, ReAct(), tasks(4)[3:])
    rendered = encode(tokenizer, render(tokenizer, chat_messages(log), log.tools, False))
    n = len(log.token_ids)
    assert log.token_ids == rendered[:n]
    assert tokenizer.decode(rendered[n:]) == "\n"  # the template's newline after the final <|im_end|>

    mask = generated_mask(log)
    sampled = tokenizer.decode([t for t, m in zip(log.token_ids, mask, strict=True) if m])
    context = tokenizer.decode([t for t, m in zip(log.token_ids, mask, strict=True) if not m])
    assert sampled == (
        'Let me add.\n<tool_call>\n{"name": "add", "arguments": {"a": 3, "b": 4}}\n</tool_call><|im_end|>'
        "The answer is 7.<|im_end|>"
    )
    assert "<tool_response>\n7\n</tool_response>" in context and "What is 3 + 4?" in context


def test_transformers_engine_is_batched_and_token_exact(tokenizer, tiny_model):
    """A chatty harness keeps episodes going to max_turns; all of them are served in one continuous batch whose
    prompts are exactly the log's token prefix, and whose sampled ids and logprobs are the spans'."""
    sessions, served = [], {}

    class Recording(TransformersEngine):
        def serve(self, requests, follow_up):
            sessions.append(len(requests))

            def record(index, generation):
                served.setdefault(index, []).append(generation)
                return follow_up(index, generation)

            super().serve(requests, record)

    engine = Recording(tiny_model, tokenizer, max_new_tokens=6, temperature=1.0)
    logs = run_episodes(engine, lambda: CalculatorHarness(chat=True), ReAct(max_turns=3), tasks(3))
    assert sessions == [3]
    for index, log in enumerate(logs):
        assert log.tier == "full" and log.metadata["termination"] == "max_turns"
        turns = served[index]
        assert len(turns) == 3
        spans = [(len(g.prompt_ids), len(g.prompt_ids) + len(g.completion_ids)) for g in turns]
        assert log.generated_spans == spans
        for generation in turns:
            prompt, completion = generation.prompt_ids, generation.completion_ids
            assert log.token_ids[: len(prompt)] == prompt
            assert log.token_ids[len(prompt) : len(prompt) + len(completion)] == completion
        logged = [lp for e in log.events if e.logprobs is not None for lp in e.logprobs]
        assert logged == [lp for g in turns for lp in g.logprobs]


def test_harness_exception_fails_only_its_episode(tokenizer):
    harnesses = [CalculatorHarness(), CalculatorHarness(fail_on_call=True), CalculatorHarness()]
    logs = run_episodes(ScriptedEngine(calculator_policy, tokenizer), harnesses, ReAct(), tasks(3))
    assert [log.metadata["termination"] for log in logs] == ["agent_stop", "error", "agent_stop"]
    error = next(e for e in logs[1].events if e.kind == EventKind.ERROR)
    assert error.payload.source == "harness" and "calculator exploded" in error.payload.message
    assert logs[1].events[-1].payload.reason == "error"


def test_malformed_call_becomes_parser_error_and_feedback(tokenizer):
    replies = iter(['<tool_call>{"name": "add", "arguments": [1, 2]}</tool_call>', "The answer is 1."])
    engine = ScriptedEngine(lambda conversation, tools: next(replies), tokenizer)
    [log] = run_episodes(engine, CalculatorHarness, ReAct(), tasks(1))
    error = next(e for e in log.events if e.kind == EventKind.ERROR)
    assert error.payload.source == "parser" and "arguments" in error.payload.message
    feedback = next(e for e in log.events if e.kind == EventKind.OBSERVATION)
    assert feedback.payload.source == "parser"
    assert log.events[2].kind == EventKind.TEXT and log.events[2].payload.text.startswith("<tool_call>")
    assert log.metadata["termination"] == "agent_stop" and log.rewards() == {"harness": 1.0}


def test_writer_gets_each_log_as_jsonl(tokenizer, tmp_path):
    path = tmp_path / "eventlogs" / "rollouts.jsonl"
    with EventLogWriter(path) as writer:
        logs = run_episodes(
            ScriptedEngine(calculator_policy, tokenizer),
            CalculatorHarness,
            ReAct(),
            tasks(2),
            writer=writer.write,
        )
    assert load_jsonl(path) == logs


def test_non_exact_engines_write_light_logs():
    logs = run_episodes(ScriptedEngine(calculator_policy), CalculatorHarness, ReAct(), tasks(2))
    assert all(log.tier == "light" and log.token_ids is None for log in logs)
    with pytest.raises(ValueError, match="token-exact"):
        run_episodes(ScriptedEngine(calculator_policy), CalculatorHarness, ReAct(), tasks(1), full=True)
