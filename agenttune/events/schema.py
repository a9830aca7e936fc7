"""The EventLog schema: one typed, versioned record of an agent episode.

An :class:`EventLog` is a list of :class:`Event` objects plus, in the ``full`` tier, the exact token ids the
policy conditioned on and produced. Every event has a typed payload chosen by its ``kind``; unknown fields
are rejected everywhere (``extra="forbid"``).

Branches keep what single-path logs flatten away: every event belongs to a branch (``"main"`` by default),
and :class:`Branch` records each branch's parent and the event index it forked at, so beam candidates,
retries and tree-search siblings stay in the log next to the accepted path.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = "1.0"


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EventKind(StrEnum):
    SYSTEM = "system"
    USER = "user"
    TEXT = "text"
    REASONING = "reasoning"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    OBSERVATION = "observation"
    TURN_COMPLETE = "turn_complete"
    REWARD = "reward"
    MEMORY_OP = "memory_op"
    ERROR = "error"


# Kinds whose content the policy produced: in a full log they carry token spans and logprobs.
GENERATED_KINDS = frozenset({EventKind.TEXT, EventKind.REASONING, EventKind.TOOL_CALL})


class SystemPayload(Strict):
    kind: Literal[EventKind.SYSTEM] = EventKind.SYSTEM
    text: str


class UserPayload(Strict):
    kind: Literal[EventKind.USER] = EventKind.USER
    text: str


class TextPayload(Strict):
    """Final or intermediate assistant text."""

    kind: Literal[EventKind.TEXT] = EventKind.TEXT
    text: str


class ReasoningPayload(Strict):
    kind: Literal[EventKind.REASONING] = EventKind.REASONING
    text: str


class ToolCallPayload(Strict):
    kind: Literal[EventKind.TOOL_CALL] = EventKind.TOOL_CALL
    call_id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class ToolResultPayload(Strict):
    kind: Literal[EventKind.TOOL_RESULT] = EventKind.TOOL_RESULT
    call_id: str  # the TOOL_CALL this answers; parallel calls stay unambiguous
    name: str
    content: str
    is_error: bool = False


class ObservationPayload(Strict):
    """Anything the environment shows the agent that is not a tool result (a web page, an image, a state)."""

    kind: Literal[EventKind.OBSERVATION] = EventKind.OBSERVATION
    content: str
    source: str = "env"  # e.g. "env", "web", "image"


class TurnCompletePayload(Strict):
    kind: Literal[EventKind.TURN_COMPLETE] = EventKind.TURN_COMPLETE
    reason: str = "end_of_turn"  # e.g. end_of_turn, agent_stop, user_stop, max_steps, error


class RewardPayload(Strict):
    kind: Literal[EventKind.REWARD] = EventKind.REWARD
    scope: Literal["step", "turn", "episode"]
    name: str  # "total" for the weighted mix, else the component's name
    value: float
    info: dict[str, Any] = Field(default_factory=dict)


class MemoryOpPayload(Strict):
    kind: Literal[EventKind.MEMORY_OP] = EventKind.MEMORY_OP
    op: Literal["write", "read", "delete", "summarize"]
    key: str
    value: str = ""


class ErrorPayload(Strict):
    """A failure that did not stop the run: a malformed tool call, a tool exception, a reward error."""

    kind: Literal[EventKind.ERROR] = EventKind.ERROR
    source: str  # e.g. "parser", "tool", "reward", "harness"
    message: str
    raw: str = ""


Payload = Annotated[
    SystemPayload
    | UserPayload
    | TextPayload
    | ReasoningPayload
    | ToolCallPayload
    | ToolResultPayload
    | ObservationPayload
    | TurnCompletePayload
    | RewardPayload
    | MemoryOpPayload
    | ErrorPayload,
    Field(discriminator="kind"),
]


class Event(Strict):
    payload: Payload
    actor: str = "agent"  # who produced it: agent, user, env, tool, system, judge, or a named agent
    branch: str = "main"
    step: int = 0  # the agent turn this event belongs to
    # Full tier only: [start, end) into EventLog.token_ids, and one logprob per token for generated kinds.
    span: tuple[int, int] | None = None
    logprobs: list[float] | None = None

    @property
    def kind(self) -> EventKind:
        return self.payload.kind


class Branch(Strict):
    id: str
    parent: str | None = None
    fork_index: int | None = None  # index into EventLog.events after which this branch forks from its parent
    status: Literal["accepted", "rejected", "open"] = "accepted"
    note: str = ""


class EventLog(Strict):
    schema_version: str = SCHEMA_VERSION
    id: str
    tier: Literal["light", "full"] = "light"
    source: str = ""  # benchmark or dataset, e.g. "cuad_search", "tau2_airline", "adp:<file>"
    task_id: str = ""
    tools: list[dict[str, Any]] = Field(default_factory=list)  # JSON schemas offered to the policy
    events: list[Event] = Field(default_factory=list)
    branches: list[Branch] = Field(default_factory=lambda: [Branch(id="main")])
    token_ids: list[int] | None = None  # full tier: the whole rendered conversation, prompt included
    metadata: dict[str, Any] = Field(default_factory=dict)
