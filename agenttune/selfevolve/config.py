"""Switches and knobs of the ToolGraph mechanisms: every ablation is one override (``pre_act_gate=false``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class ToolGraphConfig:
    # Append the graph's planning prompt (read/write tools, prerequisites, usual next steps) to the system prompt.
    planning_prompt: bool = True
    # Ask the agent for several candidate actions per decision and keep the best graph score.
    candidate_scoring: bool = True
    # Answer a write whose prerequisite reads were not done with a gate message instead of running it.
    pre_act_gate: bool = True
    # Answer the loop_limit-th identical call (same tool, same arguments) with a loop message instead of running it.
    loop_check: bool = True
    # Apply the domain's rules (extra prerequisites, prompt notes) on top of what the schemas imply.
    domain_rules: bool = True
    # Candidates asked for per decision when candidate_scoring is on.
    num_candidates: int = 4
    # Identical calls allowed before the loop check answers instead of the tool.
    loop_limit: int = 3
    # Additive smoothing of the transition weights.
    smoothing: float = 1.0
    # Domain rules; empty means the benchmark's own (tau2: agenttune.benchmarks.tau2.rules.DEFAULT_RULES).
    rules: dict[str, Any] = field(default_factory=dict)
