"""A scripted engine: a Python policy stands in for the model (tests, teachers, replayed demonstrations).

The policy is called as ``policy(conversation, tools)`` and returns either an assistant message dict
(``content`` and optional OpenAI-style ``tool_calls``) or the raw text a model would have generated. A message is
turned into raw text by the chat template itself (the template's rendering of the assistant turn, up to its stop
token), so a scripted turn looks exactly like a model's turn in the canonical format.

With a tokenizer the engine is token-exact: ``completion_ids`` are the ids of that text plus the stop token, and
``logprobs`` are 0.0 (a deterministic policy picks each token with probability 1).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agenttune.engines.base import Engine, Generation, Message
from agenttune.engines.templates import encode, end_of_turn, render
from agenttune.engines.tool_calls import assistant_text

Policy = Callable[[list[Message], list[dict[str, Any]] | None], "Message | str"]


class ScriptedEngine(Engine):
    def __init__(self, policy: Policy, tokenizer: Any = None) -> None:
        self.policy = policy
        self.tokenizer = tokenizer
        self.token_exact = tokenizer is not None
        self.stop = end_of_turn(tokenizer) if tokenizer is not None else None

    def generate(
        self,
        conversations: list[list[Message]],
        tools: list[dict[str, Any]] | None = None,
        prompt_ids: list[list[int]] | None = None,
    ) -> list[Generation]:
        self._check_prompt_ids(conversations, prompt_ids)
        generations = []
        for i, conversation in enumerate(conversations):
            reply = self.policy(conversation, tools)
            text = reply if isinstance(reply, str) else self._raw_text(conversation, tools, reply)
            if self.tokenizer is None:
                generations.append(Generation.from_text(text))
                continue
            if prompt_ids is None:
                prompt = encode(self.tokenizer, render(self.tokenizer, conversation, tools, True))
            else:
                prompt = prompt_ids[i]
            completion = [*encode(self.tokenizer, text), self.stop[0]]
            generations.append(
                Generation.from_text(
                    text, prompt_ids=list(prompt), completion_ids=completion, logprobs=[0.0] * len(completion)
                )
            )
        return generations

    def _raw_text(
        self, conversation: list[Message], tools: list[dict[str, Any]] | None, message: Message
    ) -> str:
        """The text the template renders for ``message`` after the generation prompt, before its stop token."""
        if self.tokenizer is None:
            return assistant_text(message)
        prompt = render(self.tokenizer, conversation, tools, True)
        full = render(self.tokenizer, [*conversation, {"role": "assistant", **message}], tools, False)
        if not full.startswith(prompt):
            raise ValueError(
                "the chat template renders the generation prompt differently from the assistant turn"
            )
        body = full[len(prompt) :]
        return body[: body.rfind(self.stop[1])] if self.stop[1] in body else body
