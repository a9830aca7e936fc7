"""EventLog: the one trajectory record every stage reads and writes.

``schema`` (types, tiers, branches) and ``validation`` (the cross-event rules), ``io`` (JSONL, Parquet,
datasets), ``projections`` (SFT rows, DPO pairs, RL rows, evaluator input, audit records), ``adp`` and
``adp_quality`` (Agent Data Protocol), ``verl`` (export to verl; its reward is :mod:`agenttune.rewards.verl`),
``trajectory`` (tool-use metrics) and ``arguments`` (a tool call's arguments against its JSON schema, which the
harness checks too), ``cli`` (``python -m agenttune.events``).
"""

from agenttune.events.io import (
    EventLogFileError,
    EventLogWriter,
    JsonlContents,
    LineIssue,
    from_dataset,
    load_jsonl,
    read_jsonl,
    read_parquet,
    to_dataset,
    write_jsonl,
    write_parquet,
)
from agenttune.events.kinds import GENERATED_KINDS, SCHEMA_VERSION, EventKind, EventLogError
from agenttune.events.schema import Branch, Event, EventLog, TierError, replace

__all__ = [
    "GENERATED_KINDS",
    "SCHEMA_VERSION",
    "Branch",
    "Event",
    "EventKind",
    "EventLog",
    "EventLogError",
    "EventLogFileError",
    "EventLogWriter",
    "JsonlContents",
    "LineIssue",
    "TierError",
    "from_dataset",
    "load_jsonl",
    "read_jsonl",
    "read_parquet",
    "replace",
    "to_dataset",
    "write_jsonl",
    "write_parquet",
]
