"""The workflow audit log: an EventLog file with one line per node execution, append-only and crash-safe.

Every node execution appends one or more EventLogs through :class:`~agenttune.events.io.EventLogWriter` (fsynced
per line; a torn last line is cut off when the file is reopened). Each log's metadata names the workflow, the
case, the step, the node, its kind, the acting agent and the node's outputs; every event's metadata names its
``agent`` and ``node``, so a multi-agent flow stays attributable event by event. An agent node's line is its
episode as the episode loop wrote it: full tier (token-exact) when its engine generated tokens.

Redaction (``workflow.audit.redact``, on by default) replaces personal data before anything is written: the
values of the configured ``fields`` (in tool arguments, tool metadata and node outputs) become ``[REDACTED]``,
and in every text the patterns of :func:`agenttune.events.projections.audit.redact` (e-mail, account and phone
numbers) plus the configured ``patterns`` (placeholder -> regex) are replaced. A full-tier log whose text
redaction changed drops its token ids, spans and logprobs (they would spell the data out again) and becomes
light tier, with ``metadata.redacted_tokens = true``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec

from agenttune.events.io import EventLogWriter
from agenttune.events.projections.audit import redact as redact_patterns
from agenttune.events.schema import Event, EventLog, replace
from agenttune.workflows.spec import AuditConfig

REDACTED = "[REDACTED]"
_TEXT_FIELDS = ("text", "content", "message", "raw")


class Redactor:
    """Replaces personal data in texts and structured values (see the module docstring)."""

    def __init__(self, config: AuditConfig) -> None:
        self.enabled = config.redact
        self.fields = frozenset(config.fields)
        self.patterns = [(placeholder, re.compile(regex)) for placeholder, regex in config.patterns.items()]

    def text(self, text: str) -> str:
        if not self.enabled:
            return text
        for placeholder, pattern in self.patterns:
            text = pattern.sub(placeholder, text)
        return redact_patterns(text)

    def value(self, value: Any) -> Any:
        """A copy of a JSON-like value: configured fields replaced, strings redacted."""
        if not self.enabled:
            return value
        if isinstance(value, Mapping):
            return {k: REDACTED if k in self.fields else self.value(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.value(v) for v in value]
        return self.text(value) if isinstance(value, str) else value

    def event(self, event: Event) -> Event:
        payload, changes = event.payload, {}
        for name in _TEXT_FIELDS:
            if isinstance(getattr(payload, name, None), str):
                changes[name] = self.text(getattr(payload, name))
        for name in ("arguments", "metadata", "info"):
            if isinstance(getattr(payload, name, None), dict):
                changes[name] = self.value(getattr(payload, name))
        return replace(event, payload=replace(payload, **changes)) if changes else event

    def log(self, log: EventLog) -> EventLog:
        if not self.enabled:
            return log
        events = [self.event(e) for e in log.events]
        changed = events != log.events
        if changed and log.tier == "full":
            return replace(
                log,
                tier="light",
                events=[replace(e, span=None, logprobs=None) for e in events],
                token_ids=None,
                generated_spans=None,
                metadata={**log.metadata, "redacted_tokens": True},
            )
        return replace(log, events=events) if changed else log


class AuditLog:
    """``<folder>/audit.jsonl``: each node execution's EventLogs, redacted and attributed, appended durably."""

    def __init__(self, folder: str | Path, workflow: str, config: AuditConfig) -> None:
        self.path = Path(folder) / "audit.jsonl"
        self.workflow = workflow
        self.redactor = Redactor(config)
        self._writer = EventLogWriter(self.path)

    def append(
        self,
        logs: Sequence[EventLog],
        *,
        case: int,
        step: int,
        node: str,
        kind: str,
        agent: str,
        outputs: Mapping[str, Any],
    ) -> None:
        for number, log in enumerate(logs):
            tagged = replace(
                log,
                id=f"{self.workflow}/case-{case}/step-{step}/{node}/{number}",
                events=[
                    replace(e, metadata={**e.metadata, "agent": agent, "node": node}) for e in log.events
                ],
                metadata={
                    **log.metadata,
                    "episode_id": log.id,
                    "workflow": self.workflow,
                    "case": case,
                    "step": step,
                    "node": node,
                    "kind": kind,
                    "agent": agent,
                    "outputs": _json_safe(self.redactor.value(dict(outputs))),
                },
            )
            self._writer.write(self.redactor.log(tagged))

    def close(self) -> None:
        self._writer.close()


def _json_safe(value: Any) -> Any:
    return msgspec.json.decode(msgspec.json.encode(value, enc_hook=str))
