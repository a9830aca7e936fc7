"""The running token sequence of one episode, kept exactly as the policy conditioned on it.

Re-rendering a whole conversation each turn and re-tokenising it does not give back what the policy saw: the
template re-serialises the assistant's tool calls (JSON spacing, key order) and BPE may merge differently, so
the training tokens and masks drift from the sampled ones (FACTS.md, "known pitfalls"). Instead:

* the first prompt is the template's rendering of the opening conversation with the generation prompt;
* generated ids are appended verbatim, never decoded and re-encoded;
* the turns that follow (tool results, observations, strategy prompts) are appended as the ids of the text the
  template adds for them: the rendering of the whole conversation minus the rendering up to and including the
  assistant turn, preceded by whatever the template writes after the assistant's stop token (``"\\n"`` for
  ChatML), or by the stop token itself when generation was cut at ``max_new_tokens``.

Both guarantees are checked, and a violation raises :class:`TokenTrackError` instead of logging wrong tokens:
the conversation must only grow (a strategy may not edit or drop sent messages), and the template must render
earlier turns identically once new turns follow. Templates that rewrite history, such as those that strip
``<think>`` from earlier assistant turns, fail the second check; use a template that keeps history (the
``qwen2_5`` template TRL ships does) or record light logs.
"""

from __future__ import annotations

from typing import Any

from agenttune.engines.base import Generation, Message
from agenttune.engines.templates import encode, end_of_turn, render


class TokenTrackError(RuntimeError):
    """The conversation or the chat template broke the append-only token assumption."""


class TokenTrack:
    def __init__(self, tokenizer: Any, tools: list[dict[str, Any]] | None) -> None:
        self.tokenizer = tokenizer
        self.tools = tools or None
        self.stop_text = end_of_turn(tokenizer)[1]
        self.ids: list[int] = []
        self._prompted: list[Message] | None = None  # the conversation of the last prompt
        self._sent: list[Message] | None = None  # that conversation plus the assistant turn generated for it
        self._stopped = True

    def prompt(self, conversation: list[Message]) -> list[int]:
        """The ids to condition the next turn on: the running sequence extended by the new turns."""
        if self._prompted is None:
            self.ids = encode(self.tokenizer, self._render(conversation, True))
        else:
            if self._sent is None:
                raise TokenTrackError("prompt() called twice without a generation in between")
            self.ids += encode(self.tokenizer, self._continuation(conversation))
        self._prompted, self._sent = list(conversation), None
        return list(self.ids)

    def append(self, generation: Generation, assistant: Message) -> int:
        """Add the generated ids; return where they start. ``assistant`` is the message the strategy will send."""
        if self._prompted is None or generation.completion_ids is None:
            raise TokenTrackError("append() needs a prompt() first and a generation with completion ids")
        start = len(self.ids)
        self.ids += generation.completion_ids
        self._sent = [*self._prompted, assistant]
        self._stopped = generation.finish_reason == "stop"
        return start

    def _render(self, conversation: list[Message], generation_prompt: bool) -> str:
        return render(self.tokenizer, conversation, self.tools, generation_prompt)

    def _continuation(self, conversation: list[Message]) -> str:
        sent = self._sent
        if conversation[: len(sent)] != sent or len(conversation) == len(sent):
            raise TokenTrackError(
                "the strategy's conversation must extend the previous one (prompt plus the assistant turn) with "
                "at least one new message; editing or dropping sent messages breaks token exactness"
            )
        before = self._render(self._prompted, True)
        closed = self._render(sent, False)
        full = self._render(conversation, True)
        if not closed.startswith(before) or not full.startswith(closed):
            raise TokenTrackError(
                "the chat template renders earlier turns differently once new turns follow (for example it strips "
                "<think> from past assistant turns), so the sampled tokens are no longer a prefix of the "
                "conversation; use a history-preserving template such as qwen2_5, or light logs"
            )
        body = closed[len(before) :]
        cut = body.rfind(self.stop_text)
        if cut < 0:
            raise TokenTrackError(f"the template does not close the assistant turn with {self.stop_text!r}")
        closing = body[cut + len(self.stop_text) :] if self._stopped else body[cut:]
        return closing + full[len(closed) :]
