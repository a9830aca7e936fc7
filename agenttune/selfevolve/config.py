"""The ToolGraph method's config: the mechanisms the ``harness.toolgraph`` group switches, plus the graph's settings."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agenttune.config import ToolGraphMechanisms


@dataclass
class ToolGraphConfig(ToolGraphMechanisms):
    """The mechanisms' switches (:class:`~agenttune.config.ToolGraphMechanisms`) and the graph's own settings."""

    # Additive smoothing of the transition weights.
    smoothing: float = 1.0
    # Domain rules; empty means the benchmark's own (tau2: agenttune.benchmarks.tau2.rules.DEFAULT_RULES).
    rules: dict[str, Any] = field(default_factory=dict)
