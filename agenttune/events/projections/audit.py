"""Audit records: one flat record per event, with personal data redacted by default.

Each record has the log's id, task and source, the event's index, kind, actor, branch and step, its text
(``text``, ``content`` or ``message`` of the payload), tool name, call id, JSON arguments and reward fields.
Redaction (on unless ``redact=False``) replaces, in text and arguments, e-mail addresses with
``[EMAIL]``, account-like numbers (IBANs, runs of 8 or more digits, card numbers in groups of four) with
``[ACCOUNT]`` and phone numbers (2 to 4 digit groups separated by spaces, dots or dashes, optional ``+code``
and ``(area)``, 7 or more digits) with ``[PHONE]``. It is pattern-based: it errs on the
side of redacting long numbers and will miss data that has no recognisable shape.
"""

from __future__ import annotations

import json
import re
from typing import Any

from agenttune.events.schema import EventLog

EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,4})?\b")
ACCOUNT = re.compile(r"\b(?:\d{8,}|\d{4}(?:[ -]\d{4}){2,})\b")
PHONE = re.compile(
    r"(?<![\w+])(?!\d{4}-\d{2}-\d{2}\b)(?:\+\d{1,3}[ .-]?)?(?:\(\d{2,4}\)[ .-]?)?\d{2,4}(?:[ .-]\d{2,4}){1,3}(?!\w)"
)


def redact(text: str) -> str:
    """``text`` with e-mail addresses, account-like numbers and phone numbers replaced by placeholders."""
    text = EMAIL.sub("[EMAIL]", text)
    text = IBAN.sub("[ACCOUNT]", text)
    text = ACCOUNT.sub("[ACCOUNT]", text)
    return PHONE.sub(_phone, text)


def _phone(match: re.Match[str]) -> str:
    digits = sum(c.isdigit() for c in match.group())
    return "[PHONE]" if digits >= 7 else match.group()


def audit_records(log: EventLog, *, redact_pii: bool = True) -> list[dict[str, Any]]:
    """Flat records of every event of ``log`` (all branches), redacted unless ``redact_pii=False``."""
    clean = redact if redact_pii else (lambda text: text)
    records = []
    for index, event in enumerate(log.events):
        payload = event.payload
        text = (
            getattr(payload, "text", None)
            or getattr(payload, "content", None)
            or getattr(payload, "message", "")
        )
        arguments = getattr(payload, "arguments", None)
        records.append(
            {
                "log_id": log.id,
                "task_id": log.task_id,
                "source": log.source,
                "index": index,
                "kind": payload.kind.value,
                "actor": event.actor,
                "branch": event.branch,
                "step": event.step,
                "text": clean(text),
                "tool": getattr(payload, "name", "") if payload.kind.value.startswith("tool") else "",
                "call_id": getattr(payload, "call_id", ""),
                "arguments": clean(json.dumps(arguments, ensure_ascii=False))
                if arguments is not None
                else "",
                "reward_name": getattr(payload, "name", "") if payload.kind.value == "reward" else "",
                "reward_value": getattr(payload, "value", None),
                "redacted": redact_pii,
            }
        )
    return records
