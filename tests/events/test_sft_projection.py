"""Weighted SFT rows: rendered by the chat template (light) or read from token spans (full)."""

from __future__ import annotations

import pytest
from builders import search_episode

from agenttune.events import EventLog
from agenttune.events.projections import assistant_turn_starts, chat_messages, sft_row
from agenttune.events.schema import EventKind


def weight_runs(tokenizer, row) -> list[tuple[float, str]]:
    """Consecutive tokens of equal weight, decoded."""
    runs: list[tuple[float, list[int]]] = []
    for token, weight in zip(row["input_ids"], row["weights"], strict=True):
        if runs and runs[-1][0] == weight:
            runs[-1][1].append(token)
        else:
            runs.append((weight, [token]))
    return [(weight, tokenizer.decode(tokens)) for weight, tokens in runs]


def test_light_row_is_the_chat_template_rendering(tokenizer):
    log = search_episode()
    row = sft_row(log, tokenizer)
    expected = tokenizer.apply_chat_template(chat_messages(log), tools=log.tools, tokenize=False)
    assert tokenizer.decode(row["input_ids"]) == expected
    assert len(row["weights"]) == len(row["input_ids"])


def test_light_row_weights_follow_segment_kinds(tokenizer):
    runs = weight_runs(tokenizer, sft_row(search_episode(), tokenizer))
    assert [weight for weight, _ in runs] == [0.0, 1.0, 2.0, 0.0, 1.0]
    prompt, reasoning, calls, tool_result, answer = (text for _, text in runs)
    assert "Which state's law governs?" in prompt and prompt.endswith("<|im_start|>assistant\n")
    assert reasoning == "<think>\nI should search.\n</think>"
    assert (
        '<tool_call>\n{"name": "search", "arguments": {"query": "governing law"}}\n</tool_call><|im_end|>'
        in calls
    )
    assert "<tool_response>\nlaws of Nevada\n</tool_response>" in tool_result
    assert answer.startswith("<answer>Nevada</answer><|im_end|>")


def test_weights_are_configurable_and_checked(tokenizer):
    row = sft_row(search_episode(), tokenizer, {"tool_call": 0.5, "tool_result": 0.25, "reasoning": 0.0})
    assert [w for w, _ in weight_runs(tokenizer, row)] == [0.0, 0.5, 0.25, 0.0, 1.0]
    with pytest.raises(KeyError, match="unknown segment weight 'tool_calls'"):
        sft_row(search_episode(), tokenizer, {"tool_calls": 1.0})


def test_turn_start_lifts_only_the_first_token_of_each_assistant_turn(tokenizer):
    log = search_episode()
    plain, lifted = sft_row(log, tokenizer), sft_row(log, tokenizer, {"turn_start": 8.0})
    changed = [i for i, (a, b) in enumerate(zip(plain["weights"], lifted["weights"], strict=True)) if a != b]
    assert len(changed) == 2  # the reasoning-then-call turn and the answer turn
    openings = [tokenizer.decode(plain["input_ids"][i : i + 4]) for i in changed]
    assert openings[0].startswith("<think") and openings[1].startswith("<answer")
    assert all(lifted["weights"][i] == 8.0 for i in changed)
    assert all(tokenizer.decode(plain["input_ids"][:i]).endswith("<|im_start|>assistant\n") for i in changed)
    # a floor, not an override: a heavier segment keeps its weight
    assert sft_row(log, tokenizer, {"turn_start": 0.5})["weights"] == plain["weights"]


def full_log():
    return EventLog.from_dict(
        {
            "id": "f",
            "tier": "full",
            "token_ids": list(range(100, 114)),
            "events": [
                {"payload": {"kind": "user", "text": "q"}, "actor": "user", "span": [0, 3]},
                {
                    "payload": {"kind": "tool_call", "call_id": "c", "name": "s"},
                    "span": [4, 6],
                    "logprobs": [-1, -1],
                },
                {"payload": {"kind": "turn_complete"}, "span": [6, 7], "logprobs": [-0.1]},
                {
                    "payload": {"kind": "tool_result", "call_id": "c", "name": "s", "content": "r"},
                    "span": [7, 10],
                },
                {"payload": {"kind": "text", "text": "a"}, "span": [11, 13], "logprobs": [-1, -1]},
            ],
        }
    )


def test_full_row_reads_token_ids_and_spans(tokenizer):
    log = full_log()
    row = sft_row(log, tokenizer)
    assert row["input_ids"] == log.token_ids
    assert row["weights"] == [0, 0, 0, 0, 2, 2, 2, 0, 0, 0, 0, 1, 1, 0]
    assert sft_row(log, tokenizer, {"tool_result": 0.5})["weights"][7:10] == [0.5] * 3
    # the same log rendered from content instead
    assert tokenizer.decode(sft_row(log, tokenizer, use_tokens=False)["input_ids"]).count("<tool_call>") == 1


def test_full_row_turn_start_lifts_the_first_token_of_each_turn(tokenizer):
    weights = sft_row(full_log(), tokenizer, {"turn_start": 5.0})["weights"]
    assert weights == [0, 0, 0, 0, 5, 2, 2, 0, 0, 0, 0, 5, 1, 0]
    assert assistant_turn_starts(full_log()) == [(4, EventKind.TOOL_CALL), (11, EventKind.TEXT)]


def test_light_log_cannot_use_tokens(tokenizer):
    with pytest.raises(ValueError, match="needs a full-tier log"):
        sft_row(search_episode(), tokenizer, use_tokens=True)
