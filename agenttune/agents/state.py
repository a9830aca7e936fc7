"""Per-episode state shared by the episode loop and the strategy driving it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agenttune.events.projections.messages import event_message
from agenttune.events.schema import Event, replace

Message = dict[str, Any]

# Why an episode ended (the reason of its last TURN_COMPLETE); intermediate turns end with "end_of_turn".
AGENT_STOP = "agent_stop"  # the agent answered without calling a tool
HARNESS_DONE = "harness_done"  # the harness ended the episode after a tool call or observation
MAX_TURNS = "max_turns"  # the strategy's turn budget ran out
ERROR = "error"  # the harness raised
END_OF_TURN = "end_of_turn"


@dataclass
class TurnOutcome:
    """What the environment answered to one agent turn."""

    observations: list[Event] = field(default_factory=list)
    done: bool = False
    reward: float | None = None
    reason: str | None = None  # AGENT_STOP, HARNESS_DONE or ERROR when the attempt ended, else None
    info: dict[str, Any] = field(default_factory=dict)


@dataclass
class EpisodeState:
    """The conversation a strategy sends to the engine and the bookkeeping around it.

    ``messages`` only grows (full logs depend on it). Strategies add events of their own (prompts, memory
    operations) with :meth:`emit`; the loop logs them in order.
    """

    task: Any
    messages: list[Message]
    turn: int = 0  # turns taken in the current attempt
    step: int = 0  # turns taken in the episode (Event.step)
    termination: str | None = None
    reset_requested: bool = False  # ask the loop to reset the harness and call strategy.restart
    scratch: dict[str, Any] = field(default_factory=dict)  # strategy-specific: plan, memory, reflections
    pending: list[Event] = field(default_factory=list)

    def emit(self, event: Event) -> None:
        """Log ``event`` (stamped with the current step) and, if the policy sees it, add it to the conversation."""
        event = replace(event, step=self.step)
        self.pending.append(event)
        message = event_message(event)
        if message is not None:
            self.messages.append(message)

    def drain(self) -> list[Event]:
        events, self.pending = self.pending, []
        return events
