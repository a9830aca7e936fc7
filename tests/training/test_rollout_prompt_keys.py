"""A training task is found again from the prompt the trainer hands back after its dataset's round trip."""

from __future__ import annotations

from datasets import Dataset

from agenttune.training.rollouts import _key


def test_a_prompt_keeps_its_key_through_the_prompt_dataset():
    plain = [{"role": "user", "content": "What is 1 + 2?"}]
    with_calls = [
        {"role": "user", "content": "Add 1 and 2."},
        {"role": "assistant", "content": "", "tool_calls": [{"name": "add", "arguments": {"a": 1, "b": 2}}]},
    ]
    other_call = [
        {"role": "assistant", "content": "", "tool_calls": [{"name": "neg", "arguments": {"x": 3}}]}
    ]
    rows = Dataset.from_list([{"prompt": plain}, {"prompt": with_calls}, {"prompt": other_call}])
    assert rows[1]["prompt"][1]["tool_calls"][0]["arguments"] == {"a": 1, "b": 2, "x": None}  # filled, nested
    assert rows[0]["prompt"] != plain  # Arrow filled the fields the other row has
    assert _key(rows[0]["prompt"]) == _key(plain) and _key(rows[1]["prompt"]) == _key(with_calls)
    assert _key(plain) != _key(with_calls)
