"""The Harness protocol: where an agent's actions run and where its observations come from.

A harness turns one agent action (a TOOL_CALL or a TEXT event) into the events the environment answers with.
A TOOL_CALL is always answered by a TOOL_RESULT with the same ``call_id`` (``is_error=True`` when the call
failed: unknown tool, bad arguments, an exception, a time-out); what the model did wrong never raises.
Every harness in the repo passes :func:`agenttune.harness.conformance.check_harness` (restore reverts state, a
step after done raises, every observation comes back as an event, tool results carry their call's id).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from agenttune.events.schema import Event

# A harness wrapper that answers a tool call instead of running it, as advice the agent may overrule (the same call
# sent again runs), starts that TOOL_RESULT's content with this; scripted agents recognise it and send the call again.
BLOCKED_PREFIX = "[blocked]"


class EpisodeDone(RuntimeError):
    """Raised by ``Harness.step`` when the episode has already ended."""


@dataclass
class StepResult:
    """What one ``Harness.step`` returns; each harness documents the keys of its JSON-serialisable ``info``."""

    observations: list[Event]  # TOOL_RESULT, OBSERVATION, USER or ERROR events, in order
    done: bool = False
    reward: float | None = None  # set when the harness itself scores the episode (e.g. tau2's evaluators)
    info: dict[str, Any] = field(default_factory=dict)  # e.g. termination reason, reward_info


@runtime_checkable
class Harness(Protocol):
    def capabilities(self) -> frozenset[str]:
        """Optional features, e.g. {"snapshot"}; conformance tests only what is declared."""

    def tool_schemas(self) -> list[dict[str, Any]]:
        """OpenAI-style JSON schemas of the tools the agent may call."""

    def reset(self, task: Any) -> list[Event]:
        """Start an episode on ``task``; returns the opening events (SYSTEM, USER)."""

    def step(self, action: Event) -> StepResult:
        """Apply one agent action; raises EpisodeDone after the episode ended."""

    def snapshot(self) -> Any:
        """An opaque copy of the state (only with the "snapshot" capability)."""

    def restore(self, snapshot: Any) -> None:
        """Return to a state taken by ``snapshot``."""
