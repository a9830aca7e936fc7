"""The deployment gate: a retrained candidate replaces the current policy only on a trustworthy held-out set and only
if it is better there.

The held-out set is refused (nothing deploys, whatever the scores) when it has fewer than ``gate.min_heldout``
cases, when any of its tasks is among the tasks the candidate was retrained on, or when the oracle (the
benchmark's scripted agent that knows each task's gold) fails any of its tasks: a gold the oracle contradicts is a
poisoned or broken case, and a gate that scored on it could be steered.

On an accepted set the candidate must beat the current policy on success (share of held-out episodes that did not
fail, :mod:`agenttune.selfheal.detect`) by more than ``gate.min_success_gain``, must not raise the loop rate by more
than ``gate.max_loop_rate_increase`` and must not lower tool-argument accuracy by more than
``gate.max_argument_accuracy_drop`` (:mod:`agenttune.events.trajectory`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from agenttune.events.schema import EventLog
from agenttune.events.trajectory import summarize
from agenttune.selfheal.config import GateConfig
from agenttune.selfheal.detect import failure_reasons


@dataclass
class Verdict:
    deploy: bool
    reasons: list[str] = field(default_factory=list)  # why not (empty when it deploys)
    numbers: dict[str, Any] = field(default_factory=dict)  # gate/<policy>/<metric>, gate/heldout, ...


def policy_numbers(logs: Sequence[EventLog], reward: str, threshold: float) -> dict[str, float | None]:
    """Success, loop rate and tool-argument accuracy of one policy's held-out episodes."""
    trajectory = summarize(logs)
    return {
        "success": sum(not failure_reasons(log, reward, threshold) for log in logs) / len(logs),
        "loop_rate": trajectory["loop_rate"],
        "tool_argument_accuracy": trajectory["tool_argument_accuracy"],
    }


def heldout_problems(
    heldout_ids: Sequence[str], trained_ids: Collection[str], oracle_failed: Collection[str], gate: GateConfig
) -> list[str]:
    """Why the held-out set cannot be trusted (empty when it can)."""
    problems = []
    if len(heldout_ids) < gate.min_heldout:
        problems.append(f"held-out set has {len(heldout_ids)} cases; the gate needs {gate.min_heldout}")
    overlap = sorted(set(heldout_ids) & set(trained_ids))
    if overlap:
        problems.append(f"held-out tasks {overlap[:5]} are in the retraining data")
    if oracle_failed:
        problems.append(
            f"the oracle fails held-out tasks {sorted(oracle_failed)[:5]}: their gold is contradicted"
        )
    return problems


def decide(
    current: dict[str, float | None],
    candidate: dict[str, float | None],
    gate: GateConfig,
    problems: list[str],
) -> Verdict:
    """The verdict on a candidate, with both policies' numbers as ``gate/current/*`` and ``gate/candidate/*``."""
    numbers = {f"gate/{who}/{name}": value for who, values in (("current", current), ("candidate", candidate))
               for name, value in values.items()}  # fmt: skip
    reasons = list(problems)
    gain = candidate["success"] - current["success"]
    if gain <= gate.min_success_gain:
        reasons.append(
            f"success {current['success']:.3f} -> {candidate['success']:.3f} does not beat the current policy"
        )
    loops = (candidate["loop_rate"] or 0.0) - (current["loop_rate"] or 0.0)
    if loops > gate.max_loop_rate_increase:
        reasons.append(f"loop rate rises by {loops:.3f}")
    if current["tool_argument_accuracy"] is not None:
        drop = current["tool_argument_accuracy"] - (candidate["tool_argument_accuracy"] or 0.0)
        if drop > gate.max_argument_accuracy_drop:
            reasons.append(f"tool-argument accuracy drops by {drop:.3f}")
    return Verdict(deploy=not reasons, reasons=reasons, numbers=numbers)
