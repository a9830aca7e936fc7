"""The scripted engine: messages become the template's canonical text; with a tokenizer it is token-exact."""

from __future__ import annotations

from agenttune.engines.scripted import ScriptedEngine

CALL = {"content": "Adding.", "tool_calls": [{"function": {"name": "add", "arguments": {"a": 1, "b": 2}}}]}
CONVERSATION = [{"role": "user", "content": "1 + 2?"}]


def test_message_policy_renders_like_the_template(tokenizer):
    seen = []
    engine = ScriptedEngine(lambda conversation, tools: seen.append((conversation, tools)) or CALL, tokenizer)
    [generation] = engine.generate([CONVERSATION], tools=[])
    assert (
        generation.text
        == 'Adding.\n<tool_call>\n{"name": "add", "arguments": {"a": 1, "b": 2}}\n</tool_call>'
    )
    assert generation.message["tool_calls"][0]["function"] == {"name": "add", "arguments": {"a": 1, "b": 2}}
    assert generation.completion_ids[-1] == tokenizer.convert_tokens_to_ids("<|im_end|>")
    assert generation.logprobs == [0.0] * len(generation.completion_ids)
    assert tokenizer.decode(generation.completion_ids[:-1]) == generation.text
    assert seen == [(CONVERSATION, [])]


def test_text_policy_without_tokenizer_is_not_token_exact():
    engine = ScriptedEngine(lambda conversation, tools: "<tool_call>{oops}</tool_call>")
    [generation] = engine.generate([CONVERSATION])
    assert not engine.token_exact and generation.completion_ids is None
    assert generation.parse_errors[0].raw == "<tool_call>{oops}</tool_call>"
    [plain] = ScriptedEngine(lambda conversation, tools: CALL).generate([CONVERSATION])
    assert plain.message["content"] == "Adding." and plain.parsed.tool_calls[0].arguments == {"a": 1, "b": 2}
