"""ToolGraph candidate scoring as an engine wrapper: N sampled turns per decision, the best graph score kept.

:class:`ToolGraphEngine` wraps any engine. For each conversation it asks the wrapped engine for ``num_candidates``
turns (one batched ``generate`` call for the whole batch; the engine's sampling decides how different they are) and
returns the one whose action (its first tool call, else its text) has the best :meth:`ToolGraph.score` given the
conversation so far. The returned generation is one the engine produced, ids and logprobs included, so episodes stay
full tier with a token-exact engine. The planning prompt, gate and loop check live in
:class:`agenttune.selfevolve.guard.ToolGraphHarness`.

The graph scores events; the conversation's messages are read back as the agent's actions and the tools' results.
A message does not say whether a tool failed, so only results a harness wrapper blocked
(:data:`~agenttune.harness.protocol.BLOCKED_PREFIX`) count as calls that did not run.
"""

from __future__ import annotations

from typing import Any

from agenttune.engines.base import Engine, Generation, Message
from agenttune.events.schema import Event, TextPayload, ToolCallPayload, ToolResultPayload
from agenttune.harness.protocol import BLOCKED_PREFIX
from agenttune.selfevolve.config import ToolGraphConfig
from agenttune.selfevolve.toolgraph import ToolGraph


def conversation_events(conversation: list[Message]) -> list[Event]:
    """The agent's actions (TOOL_CALL, TEXT) and the tools' results (TOOL_RESULT) of a conversation."""
    events = []
    for message in conversation:
        if message["role"] == "assistant":
            if message.get("content"):
                events.append(Event(payload=TextPayload(text=message["content"]), actor="agent"))
            for call in message.get("tool_calls") or []:
                function = call["function"]
                payload = ToolCallPayload(
                    call_id=call["id"], name=function["name"], arguments=function["arguments"]
                )
                events.append(Event(payload=payload, actor="agent"))
        elif message["role"] == "tool":
            content = message["content"]
            payload = ToolResultPayload(
                call_id=message["tool_call_id"],
                name=message["name"],
                content=content,
                is_error=content.startswith(BLOCKED_PREFIX),
            )
            events.append(Event(payload=payload, actor="tool"))
    return events


def candidate_action(generation: Generation) -> Event:
    """The action a candidate turn takes: its first tool call, else its text."""
    calls = generation.parsed.tool_calls
    if calls:
        payload = ToolCallPayload(call_id="candidate", name=calls[0].name, arguments=dict(calls[0].arguments))
        return Event(payload=payload, actor="agent")
    return Event(payload=TextPayload(text=generation.parsed.content), actor="agent")


class ToolGraphEngine(Engine):
    """An engine that keeps, of ``config.num_candidates`` sampled turns, the one the graph scores best."""

    def __init__(self, engine: Engine, graph: ToolGraph, config: ToolGraphConfig | None = None) -> None:
        self.engine = engine
        self.graph = graph
        self.config = config or ToolGraphConfig()
        self.token_exact = engine.token_exact
        self.tokenizer = engine.tokenizer

    def generate(
        self,
        conversations: list[list[Message]],
        tools: list[dict[str, Any]] | None = None,
        prompt_ids: list[list[int]] | None = None,
    ) -> list[Generation]:
        n = max(1, self.config.num_candidates)
        generations = self.engine.generate(
            [c for c in conversations for _ in range(n)],
            tools,
            None if prompt_ids is None else [ids for ids in prompt_ids for _ in range(n)],
        )
        chosen = []
        for index, conversation in enumerate(conversations):
            sampled = generations[index * n : (index + 1) * n]
            candidates = [g for g in sampled if not g.error] or sampled[:1]  # all failed: the loop logs it
            history = conversation_events(conversation)
            actions = [candidate_action(g) for g in candidates]
            best = self.graph.best(actions, history, use_rules=self.config.domain_rules)
            chosen.append(candidates[actions.index(best)])
        return chosen
