"""The engine interface: conversations in, one parsed assistant :class:`Generation` per conversation out.

Every backend (transformers, vLLM, OpenAI-compatible HTTP, scripted) implements :meth:`Engine.generate`. An engine
whose ``token_exact`` is true also accepts ``prompt_ids``: it then conditions on exactly those ids instead of
rendering the conversation, which is how the episode loop keeps a full-tier log's ``token_ids`` equal to what the
policy saw (see :mod:`agenttune.agents.tokens`).

Multi-turn rollouts go through :meth:`Engine.serve`: every request's next turn is asked for as soon as its last
one is generated. The default runs turn by turn on ``generate``; an engine that can admit a follow-up into a
running batch (continuous batching, as the transformers engine does) overrides it.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from agenttune.engines.templates import encode, render
from agenttune.engines.tool_calls import ParsedMessage, ParseError, parse_assistant_text

Message = dict[str, Any]


@dataclass
class Generation:
    """One assistant turn.

    ``text`` is the raw generated text without the stop token; ``completion_ids`` are the sampled ids, stop token
    included when ``finish_reason`` is ``"stop"``; ``logprobs`` holds one log-probability per completion id.
    Backends that do not expose ids or logprobs leave them ``None``.
    """

    text: str
    parsed: ParsedMessage
    prompt_ids: list[int] | None = None
    completion_ids: list[int] | None = None
    logprobs: list[float] | None = None
    finish_reason: Literal["stop", "length"] = "stop"
    info: dict[str, Any] = field(default_factory=dict)
    error: str = ""  # why the engine produced nothing (unreachable endpoint, unreadable answer); text is ""

    @classmethod
    def from_text(cls, text: str, **fields: Any) -> Generation:
        """Parse ``text`` for reasoning and tool calls and build the generation."""
        return cls(text=text, parsed=parse_assistant_text(text), **fields)

    @classmethod
    def failed(cls, error: str) -> Generation:
        """A turn the engine could not generate; the episode loop logs ``error`` as an ERROR event (source
        ``engine``) and ends that episode, never taking the empty text for the model's answer."""
        return cls(text="", parsed=ParsedMessage([], []), error=error)

    @property
    def parse_errors(self) -> list[ParseError]:
        return self.parsed.errors

    @property
    def message(self) -> Message:
        """The assistant chat message (see :meth:`ParsedMessage.to_message`)."""
        return self.parsed.to_message()


@dataclass
class Request:
    """One turn to generate: the conversation, the tools offered and (token-exact engines) the prompt's ids."""

    conversation: list[Message]
    tools: list[dict[str, Any]] | None = None
    prompt_ids: list[int] | None = None


FollowUp = Callable[[int, Generation], Request | None]


class Engine(ABC):
    """A generation backend. Subclasses set ``token_exact`` when they honour ``prompt_ids``."""

    token_exact: bool = False
    tokenizer: Any = None

    @abstractmethod
    def generate(
        self,
        conversations: list[list[Message]],
        tools: list[dict[str, Any]] | None = None,
        prompt_ids: list[list[int]] | None = None,
    ) -> list[Generation]:
        """One assistant turn for each conversation, in order.

        ``tools`` are OpenAI-style JSON schemas offered to the model. ``prompt_ids`` (token-exact engines only)
        replaces the rendering of each conversation by the given ids.
        """

    def sync_weights(self, model: Any) -> None:
        """Sample from ``model``'s current weights from now on (on-policy training calls this before each rollout).

        Engines that cannot serve a policy being trained (a remote endpoint) raise.
        """
        raise NotImplementedError(
            f"{type(self).__name__} serves a fixed model and cannot sample on-policy rollouts; "
            "use model.engine=transformers or vllm for training"
        )

    def serve(self, requests: list[Request], follow_up: FollowUp) -> None:
        """Generate every request, then each one's follow-ups until none is left.

        Each generation goes to ``follow_up(index, generation)`` (``index`` is the request's position in
        ``requests``), which returns that request's next turn, or ``None`` when it is done. This default is
        turn-synchronous: a round is one :meth:`generate` call per distinct tool set, so every round lasts as
        long as its longest generation.
        """
        pending = dict(enumerate(requests))
        while pending:
            groups: dict[str, list[int]] = {}
            for index, request in pending.items():
                groups.setdefault(json.dumps(request.tools, sort_keys=True), []).append(index)
            current, pending = pending, {}
            for group in groups.values():
                batch = [current[index] for index in group]
                prompt_ids = [request.prompt_ids for request in batch]
                generations = self.generate(
                    [request.conversation for request in batch],
                    batch[0].tools,
                    None if all(ids is None for ids in prompt_ids) else prompt_ids,
                )
                for index, generation in zip(group, generations, strict=True):
                    request = follow_up(index, generation)
                    if request is not None:
                        pending[index] = request

    def _check_prompt_ids(
        self, conversations: list[list[Message]], prompt_ids: list[list[int]] | None
    ) -> None:
        if prompt_ids is None:
            return
        if not self.token_exact:
            raise ValueError(
                f"{type(self).__name__} cannot condition on prompt_ids; pass conversations only."
            )
        if len(prompt_ids) != len(conversations):
            raise ValueError(f"{len(prompt_ids)} prompt_ids for {len(conversations)} conversations")

    def _prompt_token_ids(
        self,
        conversations: list[list[Message]],
        tools: list[dict[str, Any]] | None,
        prompt_ids: list[list[int]] | None,
    ) -> list[list[int]]:
        """The checked ``prompt_ids``, or each conversation rendered by the chat template and encoded."""
        self._check_prompt_ids(conversations, prompt_ids)
        if prompt_ids is not None:
            return prompt_ids
        return [encode(self.tokenizer, render(self.tokenizer, c, tools, True)) for c in conversations]
