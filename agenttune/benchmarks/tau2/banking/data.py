"""The banking_knowledge data folder: its transactional database, knowledge-base documents, tasks and prompts.

The folder is ``<data_dir>/tau2_banking_knowledge`` (``$AGENTTUNE_DATA_DIR`` or ``../shared/data``): ``db.json``
(tables of records, each table ``{"data": {id: record}, "notes": str}``), ``documents/*.json`` (``id``,
``title``, ``content``), ``tasks.json`` (tau2 tasks with the extra ``required_documents`` field) and
``prompts/components/*.md``. A missing or malformed file raises ``BankingDataError`` naming the file and the
problem, before any episode starts.

:class:`BankingDB` is the database tau2's evaluators hash. Its tables are the data's 17 plus the logs the tools
write (discoverable tools given, called and used, human transfers, reports). Which discoverable tools the agent
has unlocked is kept on the database too, but out of its hash (``unlocked_tools``): unlocking is how the agent
learns a tool's parameters, not a change to the bank, and keeping it on the database makes it part of every copy,
snapshot and reset of an episode.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError
from tau2.environment.db import DB

from agenttune.benchmarks.cuad.data import data_dir

FOLDER = "tau2_banking_knowledge"


class BankingDataError(ValueError):
    """The banking data folder is missing a file or holds one that cannot be read."""


class Table(BaseModel):
    """One table: records by id, and the data's notes on its fields."""

    data: dict[str, dict[str, Any]] = Field(default_factory=dict)
    notes: str = ""


class BankingDB(DB):
    """The bank's state; every field but ``unlocked_tools`` enters tau2's DB hash."""

    users: Table = Field(default_factory=Table)
    accounts: Table = Field(default_factory=Table)
    debit_cards: Table = Field(default_factory=Table)
    referrals: Table = Field(default_factory=Table)
    credit_card_applications: Table = Field(default_factory=Table)
    verification_history: Table = Field(default_factory=Table)
    credit_card_transaction_history: Table = Field(default_factory=Table)
    cash_back_disputes: Table = Field(default_factory=Table)
    bank_account_transaction_history: Table = Field(default_factory=Table)
    credit_card_accounts: Table = Field(default_factory=Table)
    transaction_disputes: Table = Field(default_factory=Table)
    credit_card_orders: Table = Field(default_factory=Table)
    debit_card_orders: Table = Field(default_factory=Table)
    credit_card_closure_reasons: Table = Field(default_factory=Table)
    credit_card_account_flags: Table = Field(default_factory=Table)
    credit_limit_increase_requests: Table = Field(default_factory=Table)
    payment_history: Table = Field(default_factory=Table)
    debit_card_disputes: Table = Field(default_factory=Table)
    interest_discrepancy_reports: Table = Field(default_factory=Table)
    task_config: Table = Field(default_factory=Table)  # per-task settings from a task's initial state
    agent_discoverable_tools: Table = Field(
        default_factory=Table
    )  # discoverable write tools the agent called
    user_discoverable_tools: Table = Field(default_factory=Table)  # tools the agent gave the user
    user_discoverable_tool_calls: Table = Field(default_factory=Table)  # the user's calls of given tools
    human_transfer_requests: Table = Field(default_factory=Table)
    unlocked_tools: list[str] = Field(default_factory=list, exclude=True)

    # ---- record access, used by every tool ------------------------------------------------------
    def table(self, name: str) -> dict[str, dict[str, Any]]:
        return getattr(self, name).data

    def record(self, table: str, record_id: str, what: str) -> dict[str, Any]:
        """The record ``record_id`` of ``table``; a missing one raises naming ``what`` it should be."""
        found = self.table(table).get(str(record_id))
        if found is None:
            raise ValueError(f"{what} {record_id!r} not found")
        return found

    def where(self, table: str, **equal: Any) -> list[dict[str, Any]]:
        """Records of ``table`` whose fields equal ``equal``, in id order."""
        rows = self.table(table)
        return [rows[key] for key in sorted(rows) if all(rows[key].get(f) == v for f, v in equal.items())]

    def insert(
        self, table: str, prefix: str, record: dict[str, Any], id_field: str, record_id: str | None = None
    ) -> dict[str, Any]:
        """Add ``record`` under ``record_id``, by default ``<prefix>_<hash of its contents>`` (so the same writes
        give the same ids in any order); a repeat of an identical record gets ``-2``, ``-3``... appended."""
        base = record_id or f"{prefix}_{content_id(table, record)}"
        record_id, repeat = base, 1
        while record_id in self.table(table):
            repeat += 1
            record_id = f"{base}-{repeat}"
        stored = {id_field: record_id, **record}
        self.table(table)[record_id] = stored
        return stored


def content_id(*parts: Any) -> str:
    """12 hex characters that depend only on ``parts``."""
    text = json.dumps(parts, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def seeded_id(seed: str, length: int = 16) -> str:
    """The data's id convention for records that later task steps refer to by id (a new account, a new debit
    card): the first ``length`` hex characters of the seed's SHA-256. Following it makes the ids our tools create
    the ids the tasks' gold actions use."""
    return hashlib.sha256(seed.encode()).hexdigest()[:length]


@dataclass(frozen=True)
class Document:
    id: str
    title: str
    content: str


def banking_dir() -> Path:
    path = data_dir() / FOLDER
    if not path.is_dir():
        raise BankingDataError(f"banking data folder {path} does not exist (see ../shared/data/README.md)")
    return path


def _read_json(path: Path) -> Any:
    if not path.is_file():
        raise BankingDataError(f"{path} is missing from the banking data folder")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise BankingDataError(f"{path} is not valid JSON: {error}") from error


def load_db(folder: Path | None = None) -> BankingDB:
    """``db.json`` parsed and checked (every table known, every record an object)."""
    path = (folder or banking_dir()) / "db.json"
    try:
        return BankingDB.model_validate(_read_json(path))
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise BankingDataError(f"{path}: {where}: {first['msg']}") from error


def load_documents(folder: Path | None = None) -> list[Document]:
    """The knowledge base's documents, in id order."""
    doc_dir = (folder or banking_dir()) / "documents"
    files = sorted(doc_dir.glob("*.json")) if doc_dir.is_dir() else []
    if not files:
        raise BankingDataError(f"{doc_dir} holds no documents (*.json)")
    documents = []
    for file in files:
        raw = _read_json(file)
        if not isinstance(raw, dict) or not all(
            isinstance(raw.get(k), str) for k in ("id", "title", "content")
        ):
            raise BankingDataError(f"{file}: a document needs string fields id, title and content")
        documents.append(Document(raw["id"], raw["title"], raw["content"]))
    return sorted(documents, key=lambda d: d.id)


def load_raw_tasks(folder: Path | None = None) -> list[dict[str, Any]]:
    """``tasks.json`` as plain dicts (tau2's Task model drops ``required_documents``)."""
    path = (folder or banking_dir()) / "tasks.json"
    tasks = _read_json(path)
    if not isinstance(tasks, list) or not all(isinstance(t, dict) and "id" in t for t in tasks):
        raise BankingDataError(f"{path}: expected a list of tasks, each with an id")
    return tasks


def read_prompt_component(name: str, folder: Path | None = None) -> str:
    path = (folder or banking_dir()) / "prompts" / "components" / f"{name}.md"
    if not path.is_file():
        raise BankingDataError(f"{path} is missing from the banking data folder")
    return path.read_text(encoding="utf-8").strip()


@cache
def required_documents() -> dict[str, list[str]]:
    """Task id -> the knowledge-base documents its gold trajectory relies on."""
    return {task["id"]: list(task.get("required_documents") or []) for task in load_raw_tasks()}
