"""The vocabulary the EventLog schema (:mod:`agenttune.events.schema`) and its cross-event rules
(:mod:`agenttune.events.validation`) share: versions, event kinds and the error both raise. ``schema`` imports
them from here, so the rules need not import the schema they check."""

from enum import StrEnum

SCHEMA_VERSION = "1.1"
SUPPORTED_VERSIONS = frozenset({"1.0", "1.1"})


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


class EventLogError(ValueError):
    """Data that is not a valid EventLog: a broken rule, an unknown, missing or mistyped field, or bad JSON.

    The message names the failing field path (``events[3].payload: ...``) or the event (``event 3 (tool_call)
    ...``). Raised by :meth:`EventLog.from_json`, :meth:`EventLog.from_dict` and by the cross-event rules when a
    log is built.
    """
