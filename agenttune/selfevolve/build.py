"""A domain's ToolGraph from its harness, its rules and successful EventLogs."""

from __future__ import annotations

from collections.abc import Iterable

from agenttune.events.schema import EventLog
from agenttune.selfevolve.config import ToolGraphConfig
from agenttune.selfevolve.rules import rules_for
from agenttune.selfevolve.toolgraph import DescribesTools, ToolGraph


def build_toolgraph(
    harness: DescribesTools, domain: str, config: ToolGraphConfig, success_logs: Iterable[EventLog] = ()
) -> ToolGraph:
    """The domain's graph with its rules, weights fitted on ``success_logs`` (reward 1)."""
    graph = ToolGraph.from_harness(harness, rules=rules_for(domain, config.rules))
    return graph.fit(success_logs, smoothing=config.smoothing)
