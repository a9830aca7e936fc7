"""ToolGraphAgent: the agent-side ToolGraph mechanism, scoring N candidate actions per decision.

It wraps an agent (``act(events) -> Event``). With ``candidate_scoring`` on and an agent that can also
propose several actions (``propose(events, n) -> list[Event]``, e.g. n sampled completions), it keeps the
candidate with the best graph score (:meth:`ToolGraph.score`: learned transition weight, unmet
prerequisites and repeats penalised); otherwise it is the wrapped agent's ``act``. The planning prompt,
gate and loop check live in :class:`agenttune.selfevolve.guard.ToolGraphHarness`.
"""

from __future__ import annotations

from typing import Any

from agenttune.events.schema import Event
from agenttune.selfevolve.config import ToolGraphConfig
from agenttune.selfevolve.toolgraph import ToolGraph


class ToolGraphAgent:
    def __init__(self, agent: Any, graph: ToolGraph, config: ToolGraphConfig | None = None) -> None:
        self.agent = agent
        self.graph = graph
        self.config = config or ToolGraphConfig()

    def act(self, events: list[Event]) -> Event:
        if not (self.config.candidate_scoring and hasattr(self.agent, "propose")):
            return self.agent.act(events)
        candidates = self.agent.propose(events, self.config.num_candidates)
        return self.graph.best(candidates, events, use_rules=self.config.domain_rules)
