"""A domain's ToolGraph from its harness, the benchmark's rules for it and successful EventLogs."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from agenttune.events.schema import EventLog
from agenttune.selfevolve.config import ToolGraphConfig
from agenttune.selfevolve.toolgraph import DescribesTools, ToolGraph


def build_toolgraph(
    harness: DescribesTools,
    rules: Mapping[str, Any],
    config: ToolGraphConfig,
    success_logs: Iterable[EventLog] = (),
) -> ToolGraph:
    """The graph of ``harness``'s tools with ``rules`` (``config.rules`` instead when set), weights fitted on
    ``success_logs``."""
    graph = ToolGraph.from_harness(harness, rules=dict(config.rules or rules))
    return graph.fit(success_logs, smoothing=config.smoothing)
