"""ToolGraph rules for banking, read from the knowledge base: where an article's procedure verifies the customer
before it names a discoverable write tool ("1. Verify customer identity. ... 4. Use open_bank_account_4821"), that
tool requires ``log_verification`` first. Same shape as :mod:`agenttune.benchmarks.tau2.rules` (``prerequisites``,
``notes``)."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from agenttune.benchmarks.tau2.banking import agent_tools  # noqa: F401 - registers the discoverable tools
from agenttune.benchmarks.tau2.banking.catalogue import CATALOGUE
from agenttune.benchmarks.tau2.banking.knowledge import documents

VERIFY = re.compile(r"\bverif(y|ied|ication)\b", re.IGNORECASE)
NOTES = [
    "Verify the customer's identity and log it (log_verification) before acting on their accounts.",
    "Search the knowledge base for the procedure; unlock a discoverable tool before calling it.",
]


@cache
def policy_rules() -> dict[str, Any]:
    writes = [name for name, tool in CATALOGUE.items() if tool.side == "agent" and tool.kind == "write"]
    prerequisites: dict[str, list[str]] = {}
    for doc in documents().values():
        verified = VERIFY.search(doc.content)
        for name in writes:
            named = doc.content.find(name)
            if verified and 0 <= named and verified.start() < named:
                prerequisites[name] = ["log_verification"]
    return {"prerequisites": dict(sorted(prerequisites.items())), "notes": list(NOTES)}
