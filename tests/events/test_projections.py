"""DPO pairs, RL rows, evaluator input and audit records."""

from __future__ import annotations

import pytest
from builders import search_episode
from trl.data_utils import apply_chat_template, is_conversational

from agenttune.events import Branch, Event, EventLog, TierError, replace
from agenttune.events.projections import (
    audit_records,
    dpo_row,
    dpo_row_by_reward,
    dpo_row_from_branches,
    evaluator_input,
    redact,
    rl_row,
)
from agenttune.events.schema import TextPayload, ToolResultPayload


def test_dpo_row_cuts_at_the_diverging_assistant_turn(tokenizer):
    good, bad = search_episode("Nevada", "good", 1.0), search_episode("Utah", "bad", 0.0)
    row = dpo_row(good, bad)
    assert [m["role"] for m in row["prompt"]] == ["system", "user", "assistant", "tool"]
    assert row["prompt"][2]["tool_calls"][0]["function"]["name"] == "search"
    assert row["chosen"] == [{"role": "assistant", "content": "<answer>Nevada</answer>"}]
    assert row["rejected"] == [{"role": "assistant", "content": "<answer>Utah</answer>"}]
    assert is_conversational(row)
    rendered = apply_chat_template(row, tokenizer, tools=row["tools"])
    assert (
        rendered["chosen"].startswith("<answer>Nevada</answer>") and "<tool_response>" in rendered["prompt"]
    )
    assert dpo_row_by_reward(bad, good)["chosen"] == row["chosen"]


def test_dpo_refuses_pairs_that_diverge_outside_an_assistant_turn():
    one = search_episode(log_id="a")
    data = one.to_dict()
    data["events"][4]["payload"]["content"] = "laws of Utah"
    other = EventLog.from_dict({**data, "id": "b"})
    with pytest.raises(ValueError, match="diverge at message 3 with roles 'tool' / 'tool'"):
        dpo_row(one, other)


def test_dpo_row_from_two_branches():
    log = search_episode()
    events = [*log.events[:7], Event(payload=TextPayload(text="<answer>Utah</answer>"), branch="retry")]
    branches = [Branch(id="main"), Branch(id="retry", parent="main", fork_index=4, status="rejected")]
    log = replace(log, events=events, branches=branches)
    row = dpo_row_from_branches(EventLog.from_dict(log.to_dict()), "main", "retry")
    assert row["rejected"][0]["content"] == "<answer>Utah</answer>"
    assert len(row["prompt"]) == 4


def full_episode() -> EventLog:
    return EventLog.from_dict(
        {
            "id": "f",
            "tier": "full",
            "token_ids": list(range(20)),
            "events": [
                {"payload": {"kind": "user", "text": "q"}, "actor": "user", "span": [0, 4]},
                {
                    "payload": {"kind": "tool_call", "call_id": "c", "name": "s"},
                    "span": [6, 9],
                    "logprobs": [-1] * 3,
                },
                {
                    "payload": {"kind": "tool_result", "call_id": "c", "name": "s", "content": "r"},
                    "span": [9, 13],
                },
                {"payload": {"kind": "text", "text": "a"}, "span": [15, 17], "logprobs": [-0.5, -0.25]},
                {"payload": {"kind": "turn_complete"}, "span": [17, 18], "logprobs": [-0.125]},
                {"payload": {"kind": "reward", "scope": "episode", "name": "total", "value": 0.75}},
                {"payload": {"kind": "reward", "scope": "episode", "name": "answer", "value": 1.0}},
            ],
        }
    )


def test_rl_row_masks_tool_results_inside_the_completion():
    row = rl_row(full_episode())
    assert row["prompt_ids"] == list(range(6))
    assert row["completion_ids"] == list(range(6, 18))
    assert row["tool_mask"] == [1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1]
    assert row["old_logprobs"][-3:] == [-0.5, -0.25, -0.125] and row["old_logprobs"][3] == 0.0
    assert row["reward"] == 0.75 and row["reward_components"] == {"total": 0.75, "answer": 1.0}


def test_rl_row_needs_a_full_log():
    with pytest.raises(TierError, match="rl_row needs a full-tier log"):
        rl_row(search_episode())


def test_evaluator_input_collects_answer_calls_and_retrieved_ids():
    log = search_episode()
    events = [*log.events]
    events.insert(
        5,
        Event(
            payload=ToolResultPayload(
                call_id="c1", name="search", content="x", metadata={"retrieved_ids": ["d7", "d9"]}
            ),
            actor="tool",
        ),
    )
    record = evaluator_input(replace(log, events=events))
    assert record["question"] == "Which state's law governs?"
    assert record["final_answer"] == "<answer>Nevada</answer>"
    assert record["tool_calls"] == [
        {"call_id": "c1", "name": "search", "arguments": {"query": "governing law"}}
    ]
    assert record["retrieved_ids"] == ["d3", "d7", "d9"]
    assert record["rewards"] == {"total": 1.0, "answer": 1.0}


def test_redaction():
    text = (
        "Mail jane.roe@example.org, call +1 (555) 123-4567 or 020 7946 0958; IBAN DE89 3704 0044 0532 0130 00"
    )
    assert redact(text) == "Mail [EMAIL], call [PHONE] or [PHONE]; IBAN [ACCOUNT]"
    assert redact("card 4111 1111 1111 1111, account 12345678") == "card [ACCOUNT], account [ACCOUNT]"
    assert redact("on 2024-03-01 we paid 250 for 3 items") == "on 2024-03-01 we paid 250 for 3 items"


def test_audit_records_redact_by_default():
    log = search_episode()
    data = log.to_dict()
    data["events"][1]["payload"]["text"] = "I am bob@corp.com"
    data["events"][3]["payload"]["arguments"] = {"query": "account 98765432"}
    log = EventLog.from_dict(data)
    records = audit_records(log)
    assert len(records) == len(log.events)
    assert records[1]["text"] == "I am [EMAIL]" and records[1]["kind"] == "user"
    assert records[3]["arguments"] == '{"query": "account [ACCOUNT]"}' and records[3]["tool"] == "search"
    assert records[7]["reward_value"] == 1.0
    raw = audit_records(log, redact_pii=False)
    assert raw[1]["text"] == "I am bob@corp.com" and raw[1]["redacted"] is False


def test_agent_turns_keep_malformed_calls_for_the_format_reward_and_end_with_the_answer(tokenizer):
    from agenttune.agents import ReAct, run_episodes
    from agenttune.agents.toy import CalculatorHarness, tasks
    from agenttune.engines.scripted import ScriptedEngine
    from agenttune.events.projections.messages import agent_turns
    from agenttune.rewards.cuad_search import completion_text
    from agenttune.rewards.format import tool_call_format

    replies = iter(
        [
            '<tool_call>{"name": "add", "arguments": </tool_call>',
            '<tool_call>{"name": "add", "arguments": {"a": 1, "b": 2}}</tool_call>',
            "<answer>3</answer>",
        ]
    )
    engine = ScriptedEngine(lambda conversation, tools: next(replies), tokenizer)
    [log] = run_episodes(engine, CalculatorHarness, ReAct(max_turns=4), tasks(2)[1:])
    turns = agent_turns(log)
    assert tool_call_format([turns]) == [-1.0]  # the malformed call of the first turn still counts
    assert tool_call_format([turns[1:]]) == [1.0]
    assert completion_text(turns) == "<answer>3</answer>"
