"""One call from a harness, a config and successful EventLogs to the wrapped harness and agent."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agenttune.events.schema import EventLog
from agenttune.selfevolve.agent import ToolGraphAgent
from agenttune.selfevolve.config import ToolGraphConfig
from agenttune.selfevolve.guard import ToolGraphHarness
from agenttune.selfevolve.rules import rules_for
from agenttune.selfevolve.toolgraph import DescribesTools, ToolGraph


def build_toolgraph(
    harness: DescribesTools, domain: str, config: ToolGraphConfig, success_logs: Iterable[EventLog] = ()
) -> ToolGraph:
    """The domain's graph with its rules, weights fitted on ``success_logs`` (reward 1)."""
    graph = ToolGraph.from_harness(harness, rules=rules_for(domain, config.rules))
    return graph.fit(success_logs, smoothing=config.smoothing)


def wrap(
    harness: Any, agent: Any, graph: ToolGraph, config: ToolGraphConfig
) -> tuple[ToolGraphHarness, ToolGraphAgent]:
    """Apply every mechanism the config switches on: run the returned agent on the returned harness."""
    return ToolGraphHarness(harness, graph, config), ToolGraphAgent(agent, graph, config)
