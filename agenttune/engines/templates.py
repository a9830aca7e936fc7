"""Chat-template rendering and the stop tokens of a tokenizer, shared by the local engines and the token tracker."""

from __future__ import annotations

from typing import Any

Message = dict[str, Any]
END_OF_TURN_TOKENS = ("<|im_end|>", "<|eot_id|>", "<|end|>")


def render(
    tokenizer: Any, messages: list[Message], tools: list[dict] | None, add_generation_prompt: bool
) -> str:
    """The chat template's text for ``messages`` (tool schemas rendered where the template supports them)."""
    return tokenizer.apply_chat_template(
        messages, tools=tools or None, add_generation_prompt=add_generation_prompt, tokenize=False
    )


def encode(tokenizer: Any, text: str) -> list[int]:
    """Token ids of already-templated text (the template supplies every special token itself)."""
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def stop_token_ids(tokenizer: Any) -> list[int]:
    """Ids that end an assistant turn: the eos token and any ChatML-style end-of-turn token in the vocabulary."""
    ids = {tokenizer.eos_token_id} if tokenizer.eos_token_id is not None else set()
    for token in END_OF_TURN_TOKENS:
        token_id = tokenizer.convert_tokens_to_ids(token)
        if token_id is not None and tokenizer.convert_ids_to_tokens(token_id) == token:
            ids.add(token_id)
    return sorted(ids)


def end_of_turn(tokenizer: Any) -> tuple[int, str]:
    """The stop token the template closes an assistant turn with, as ``(id, text)``.

    Found by rendering a one-exchange conversation and taking the first stop token after the assistant's text.
    """
    marker = "END-OF-ASSISTANT-TEXT"
    text = render(
        tokenizer, [{"role": "user", "content": "?"}, {"role": "assistant", "content": marker}], None, False
    )
    tail = text[text.rindex(marker) + len(marker) :]
    found = [(tail.find(tokenizer.decode([i])), i) for i in stop_token_ids(tokenizer)]
    found = [(position, i) for position, i in found if position >= 0]
    if not found:
        raise ValueError("the chat template closes assistant turns with none of the tokenizer's stop tokens")
    token_id = min(found)[1]
    return token_id, tokenizer.decode([token_id])
