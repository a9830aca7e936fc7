"""The ToolGraph controller around a domain's episodes: the switches from the ``harness.toolgraph`` config, and the
wrappers that put a domain's graph (:func:`agenttune.selfevolve.build.build_toolgraph`, from the benchmark's domain
facts) around a harness and, with candidate scoring, around the policy's engine."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from agenttune.config import ToolGraphMechanisms, ToolGraphSwitches
from agenttune.engines.base import Engine
from agenttune.harness.protocol import Harness
from agenttune.selfevolve.candidates import ToolGraphEngine
from agenttune.selfevolve.config import ToolGraphConfig
from agenttune.selfevolve.guard import ToolGraphHarness
from agenttune.selfevolve.toolgraph import ToolGraph


def toolgraph_config(switches: ToolGraphSwitches) -> ToolGraphConfig:
    """The mechanisms ``harness.toolgraph`` switches on, as the method's config."""
    return ToolGraphConfig(
        **{field.name: getattr(switches, field.name) for field in fields(ToolGraphMechanisms)}
    )


class ToolGraphController:
    """One domain's graph and switches; wraps that domain's harnesses and the agent that plays its tasks."""

    def __init__(self, graph: ToolGraph, config: ToolGraphConfig) -> None:
        self.graph, self.config = graph, config

    def harness(self, harness: Harness) -> ToolGraphHarness:
        return ToolGraphHarness(harness, self.graph, self.config)

    def agent(self, agent: Any) -> Any:
        """The policy's engine inside candidate scoring when it is on; a scripted agent has one answer to give."""
        if self.config.candidate_scoring and isinstance(agent, Engine):
            return ToolGraphEngine(agent, self.graph, self.config)
        return agent
