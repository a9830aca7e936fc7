"""PolicyAgent: an :class:`~agenttune.engines.base.Engine` behind the tau2 agent interface ``act(events) -> Event``.

The episode's events are rendered as chat messages the way divergence-point DPO pairs render them
(:func:`agenttune.selfevolve.divergence.render_messages`: the agent's own actions as assistant text, tool
calls in ``<tool_call>`` tags), so the policy is trained on exactly the prompts it sees here. The engine gets
the harness's tool schemas. A parsed tool call becomes a TOOL_CALL event (the first one when the model wrote
several); anything else (plain text, malformed calls, an engine failure) becomes a TEXT event, never an
exception, so a weak policy still runs a whole episode and is scored by tau2's evaluators.

``propose(events, n)`` samples ``n`` candidate actions in one batched ``generate`` call, for ToolGraph
candidate scoring (:class:`agenttune.selfevolve.agent.ToolGraphAgent`).
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from agenttune.benchmarks.tau2.oracle import text_event, tool_call_event
from agenttune.engines.base import Engine, Generation
from agenttune.events.schema import Event
from agenttune.selfevolve.divergence import render_messages

log = logging.getLogger(__name__)

EMPTY_REPLY = "Could you tell me more about what you need?"


def generation_to_event(generation: Generation) -> Event:
    """A TOOL_CALL event for the first parsed tool call, else a TEXT event of what the model wrote."""
    calls = generation.parsed.tool_calls
    if calls:
        call = calls[0]
        return tool_call_event(call.name, dict(call.arguments), f"call_{uuid.uuid4().hex[:8]}")
    text = generation.parsed.content or generation.text.strip()
    return text_event(text or EMPTY_REPLY)


class PolicyAgent:
    """The model as a tau2 agent: one ``engine.generate`` call per action."""

    def __init__(self, engine: Engine, tools: list[dict[str, Any]] | None = None) -> None:
        self.engine = engine
        self.tools = tools
        self.failures = 0  # engine calls that raised (answered with a TEXT event)

    def _generate(self, events: list[Event], n: int) -> list[Event]:
        messages = render_messages(events)
        try:
            generations = self.engine.generate([messages] * n, tools=self.tools)
        except Exception as error:  # a policy failure is an action, not a crash of the episode
            self.failures += 1
            log.warning("policy generation failed: %s", error)
            return [text_event(EMPTY_REPLY) for _ in range(n)]
        return [generation_to_event(g) for g in generations]

    def act(self, events: list[Event]) -> Event:
        return self._generate(events, 1)[0]

    def propose(self, events: list[Event], n: int) -> list[Event]:
        """``n`` sampled candidate actions (the engine's temperature decides how different they are)."""
        return self._generate(events, max(1, n))
