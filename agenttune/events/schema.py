"""The EventLog schema: one typed, versioned record of an agent episode.

An :class:`EventLog` is a list of :class:`Event` objects plus, in the ``full`` tier, the exact token ids the
policy conditioned on and produced. Every event has a typed payload chosen by its ``kind``. The types are
msgspec Structs: decoding (:meth:`EventLog.from_json`, :meth:`EventLog.from_dict`) checks every field's type
and rejects unknown fields at every level; building objects in Python checks neither (an unknown keyword is
a ``TypeError``), and the cross-event rules below run in both cases. JSON leaves out fields at their default
value (``schema_version`` excepted: it is always written). Invalid data raises :class:`EventLogError`.

Branches keep what single-path logs flatten away: every event belongs to a branch (``"main"`` by default),
and :class:`Branch` records each branch's parent and the event index it forked at, so beam candidates,
retries and tree-search siblings stay in the log next to the accepted path. A branch's *lineage* is its own
events plus, for each ancestor, that ancestor's events up to and including the fork index (a child without a
``fork_index`` forks just before its own first event).

Rules checked when a log is built or read (:mod:`agenttune.events.validation`; every message names the event
by index and kind):

* Versions: ``schema_version`` is one of :data:`~agenttune.events.kinds.SUPPORTED_VERSIONS`. 1.1 added, all optional and defaulted:
  ``Event.metadata``, ``ToolResultPayload.metadata`` and ``EventLog.generated_spans``.
* Branches: ids are unique, ``"main"`` has no parent, every parent and every event's branch is declared,
  parents form no cycle, and a branch's events come after its fork index.
* Tool calls: every TOOL_RESULT's ``call_id`` names a TOOL_CALL earlier in the same branch lineage; a call id
  is used by one TOOL_CALL per lineage.
* Light tier holds content only: no ``token_ids``, ``generated_spans``, spans or logprobs (set
  ``tier="full"`` to keep them).
* Full tier proves which tokens the model generated. ``token_ids`` is the whole conversation rendered by the
  chat template, prompt included. The model-generated tokens are (1) the span of every event of
  :data:`~agenttune.events.kinds.GENERATED_KINDS` whose actor is ``"agent"`` (the tokens sampled for it, wrapper tokens such as
  ``<tool_call>`` tags included), which must carry a span and one logprob per token; (2) any other span
  that carries logprobs, typically a TURN_COMPLETE by the agent holding the sampled end-of-turn token; and
  (3) when the engine records them, the ranges in ``generated_spans``, each of which must lie inside spans
  that carry logprobs. Spans are ``[start, end)``, inside ``token_ids``, non-empty when they carry logprobs,
  and never overlap. Logprobs need a span of the same length. Events that render template text (system,
  user, tool results) may carry spans without logprobs; those tokens count as not generated.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar, Literal, TypeVar

import msgspec

from agenttune.events.kinds import SCHEMA_VERSION, EventKind, EventLogError
from agenttune.events.validation import check_log

_S = TypeVar("_S", bound="Strict")


class Strict(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True, gc=False):
    """Base of every schema type: unknown fields rejected, defaults left out of the JSON. (``kw_only=True``
    is not inherited, so each class states it: fields are keyword-only everywhere.)

    ``gc=False``: schema objects form trees (no reference cycles), so the cyclic collector need not track
    them. Constructors do not check field types; decoding (:meth:`EventLog.from_json`, ``from_dict``) does.
    """


class PayloadBase(Strict, tag_field="kind"):
    """A payload is tagged in JSON by ``"kind"``; each class's tag is its :class:`EventKind` value, which
    ``payload.kind`` returns as an ``EventKind``."""

    kind: ClassVar[EventKind]  # set from the tag below the payload classes


class SystemPayload(PayloadBase, tag=EventKind.SYSTEM.value, kw_only=True):
    text: str


class UserPayload(PayloadBase, tag=EventKind.USER.value, kw_only=True):
    text: str


class TextPayload(PayloadBase, tag=EventKind.TEXT.value, kw_only=True):
    """Final or intermediate assistant text."""

    text: str


class ReasoningPayload(PayloadBase, tag=EventKind.REASONING.value, kw_only=True):
    text: str


class ToolCallPayload(PayloadBase, tag=EventKind.TOOL_CALL.value, kw_only=True):
    call_id: str
    name: str
    arguments: dict[str, Any] = msgspec.field(default_factory=dict)


class ToolResultPayload(PayloadBase, tag=EventKind.TOOL_RESULT.value, kw_only=True):
    call_id: str  # the TOOL_CALL this answers; parallel calls stay unambiguous
    name: str
    content: str
    is_error: bool = False
    # Structured facts about the result that are not shown to the policy, e.g. {"retrieved_ids": [...]}.
    metadata: dict[str, Any] = msgspec.field(default_factory=dict)


class ObservationPayload(PayloadBase, tag=EventKind.OBSERVATION.value, kw_only=True):
    """Anything the environment shows the agent that is not a tool result (a web page, an image, a state)."""

    content: str
    source: str = "env"  # e.g. "env", "web", "image"


class TurnCompletePayload(PayloadBase, tag=EventKind.TURN_COMPLETE.value, kw_only=True):
    reason: str = "end_of_turn"  # e.g. end_of_turn, agent_stop, user_stop, max_steps, error


class RewardPayload(PayloadBase, tag=EventKind.REWARD.value, kw_only=True):
    scope: Literal["step", "turn", "episode"]
    name: str  # "total" for the weighted mix, else the component's name
    value: float
    info: dict[str, Any] = msgspec.field(default_factory=dict)


class MemoryOpPayload(PayloadBase, tag=EventKind.MEMORY_OP.value, kw_only=True):
    op: Literal["write", "read", "delete", "summarize"]
    key: str
    value: str = ""


class ErrorPayload(PayloadBase, tag=EventKind.ERROR.value, kw_only=True):
    """A failure that did not stop the run: a malformed tool call, a tool exception, a reward error."""

    source: str  # e.g. "parser", "tool", "reward", "harness"
    message: str
    raw: str = ""


for _payload_class in PayloadBase.__subclasses__():
    _payload_class.kind = EventKind(_payload_class.__struct_config__.tag)
del _payload_class

Payload = (
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
    | ErrorPayload
)


class Event(Strict, kw_only=True):
    payload: Payload
    actor: str = "agent"  # who produced it: agent, user, env, tool, system, judge, or a named agent
    branch: str = "main"
    step: int = 0  # the agent turn this event belongs to
    # Full tier only: [start, end) into EventLog.token_ids, and one logprob per token for generated kinds.
    span: tuple[int, int] | None = None
    logprobs: list[float] | None = None
    metadata: dict[str, Any] = msgspec.field(default_factory=dict)  # e.g. an imported format's fields

    @property
    def kind(self) -> EventKind:
        return self.payload.kind


class Branch(Strict, kw_only=True):
    id: str
    parent: str | None = None
    fork_index: int | None = None  # index into EventLog.events after which this branch forks from its parent
    status: Literal["accepted", "rejected", "open"] = "accepted"
    note: str = ""


class EventLog(Strict, kw_only=True):
    # a factory, not a plain default, so that the version is always written (omit_defaults leaves the rest out)
    schema_version: str = msgspec.field(default_factory=lambda: SCHEMA_VERSION)
    id: str
    tier: Literal["light", "full"] = "light"
    source: str = ""  # benchmark or dataset, e.g. "cuad_search", "tau2_airline", "adp:<file>"
    task_id: str = ""
    tools: list[dict[str, Any]] = msgspec.field(default_factory=list)  # JSON schemas offered to the policy
    events: list[Event] = msgspec.field(default_factory=list)
    branches: list[Branch] = msgspec.field(default_factory=lambda: [Branch(id="main")])
    token_ids: list[int] | None = None  # full tier: the whole rendered conversation, prompt included
    metadata: dict[str, Any] = msgspec.field(default_factory=dict)
    # Full tier, optional: [start, end) ranges of token_ids the engine sampled, checked against event spans.
    generated_spans: list[tuple[int, int]] | None = None

    def __post_init__(self) -> None:
        check_log(self)  # raises EventLogError; decoding wraps it into msgspec.ValidationError, see from_json

    @classmethod
    def from_json(cls, data: bytes | str) -> EventLog:
        """Parse and validate one JSON document; raise :class:`EventLogError` naming the failing field."""
        try:
            return _DECODER.decode(data)
        except msgspec.DecodeError as error:  # ValidationError included
            raise EventLogError(_describe(error)) from None
        except RecursionError:
            raise EventLogError("the JSON nests too deeply to decode") from None

    def to_json(self) -> bytes:
        """The log as compact JSON (UTF-8; fields at their default value left out). A lone UTF-16 surrogate in a
        string (which UTF-8 cannot encode) is written as U+FFFD."""
        try:
            return _ENCODER.encode(self)
        except UnicodeEncodeError:
            return _ENCODER.encode(_without_surrogates(to_builtins(self)))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EventLog:
        """Validate JSON-compatible builtins (what :meth:`to_dict` returns); raise :class:`EventLogError`."""
        try:
            return msgspec.convert(data, cls)
        except msgspec.ValidationError as error:
            raise EventLogError(_describe(error)) from None
        except RecursionError:
            raise EventLogError("the data nests too deeply to convert") from None

    def to_dict(self) -> dict[str, Any]:
        """The log as JSON-compatible builtins (dicts, lists, str, numbers; defaults left out)."""
        return to_builtins(self)

    def require_full(self, operation: str) -> None:
        """Raise :class:`TierError` unless this log is full tier; ``operation`` names what needed it."""
        if self.tier != "full":
            raise TierError(
                f"{operation} needs a full-tier log (exact token ids, spans and logprobs), but log {self.id!r} is "
                "light: it holds content only. Record it with tier='full' (the runtime does so when asked to "
                "keep tokens) or use a projection that renders content."
            )

    def lineage(self, branch: str = "main") -> list[int]:
        """Indices of the events on ``branch``'s path from the root, in order (see the module docstring)."""
        by_id = {b.id: b for b in self.branches}
        if branch not in by_id:
            raise KeyError(f"log {self.id!r} has no branch {branch!r}; it has {sorted(by_id)}")
        chain, limits, limit = [], {}, len(self.events)
        node: str | None = branch
        while node is not None:
            chain.append(node)
            limits[node] = limit
            info = by_id[node]
            if info.parent is not None:
                fork = info.fork_index
                if fork is None:
                    fork = (
                        next((i for i, e in enumerate(self.events) if e.branch == node), len(self.events)) - 1
                    )
                limit = min(limit, fork + 1)
            node = info.parent
        return [i for i, e in enumerate(self.events) if e.branch in limits and i < limits[e.branch]]

    def path(self, branch: str = "main") -> list[Event]:
        """The events of :meth:`lineage`."""
        return [self.events[i] for i in self.lineage(branch)]

    def rewards(self, scope: str = "episode", branch: str = "main") -> dict[str, float]:
        """Reward values of one scope on a branch path, by name (the last one wins for repeated names)."""
        return {
            e.payload.name: e.payload.value
            for e in self.path(branch)
            if e.payload.kind == EventKind.REWARD and e.payload.scope == scope
        }


class TierError(ValueError):
    """A full-tier-only operation was asked of a light log."""


def replace(obj: _S, /, **changes: Any) -> _S:
    """A shallow copy of a schema object with ``changes`` applied (an EventLog is checked again)."""
    return msgspec.structs.replace(obj, **changes)


def to_builtins(obj: Strict) -> Any:
    """Any schema object as JSON-compatible builtins (fields at their default value left out)."""
    return msgspec.to_builtins(obj)


SURROGATE = re.compile("[\ud800-\udfff]")


def _without_surrogates(value: Any) -> Any:
    """JSON-compatible builtins with every UTF-16 surrogate code point in strings and keys replaced by U+FFFD."""
    if isinstance(value, str):
        return SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_without_surrogates(key): _without_surrogates(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_without_surrogates(item) for item in value]
    return value


def _describe(error: msgspec.DecodeError) -> str:
    """msgspec's ``message - at `$.events[0].payload``` as ``events[0].payload: message``."""
    message, at, where = str(error).rpartition(" - at `$")
    if not at:
        return str(error)
    where = where.removesuffix("`").removeprefix(".")
    return f"{where}: {message}" if where else message


_ENCODER = msgspec.json.Encoder()
_DECODER = msgspec.json.Decoder(EventLog)
