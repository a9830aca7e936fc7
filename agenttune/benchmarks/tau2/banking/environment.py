"""The banking_knowledge domain as a tau2 environment module: ``get_environment``, ``get_tasks`` and
``get_tasks_split``, the three functions :mod:`agenttune.benchmarks.tau2.domains` reads from every domain.

The environment is tau2's own ``Environment`` with agenttune's toolkits, so tau2's evaluators (DB hash, actions,
communicated information) score it as they score airline, retail and telecom. Splits: ``base`` (all 97 tasks,
what tau2-bench evaluates), ``train`` (every third task, 33, for collecting self-evolution trajectories) and
``test`` (the other 64).
"""

from __future__ import annotations

from functools import cache

from tau2.data_model.tasks import Task
from tau2.environment.environment import Environment

from agenttune.benchmarks.tau2.banking.agent_tools import BankingAgentTools
from agenttune.benchmarks.tau2.banking.data import BankingDB, load_db, load_raw_tasks, read_prompt_component
from agenttune.benchmarks.tau2.banking.user_tools import BankingUserTools

DOMAIN = "banking_knowledge"
SEARCH_NOTE = (
    "**Search the knowledge base** for relevant information when appropriate using the provided `KB_search` tool: "
    "it returns the most relevant articles, whole."
)


@cache
def policy() -> str:
    """The domain policy: the data's policy header, how to search, and the discoverable-tool instructions."""
    return "\n\n".join(
        [
            read_prompt_component("policy_header"),
            SEARCH_NOTE,
            read_prompt_component("additional_instructions"),
        ]
    )


def get_environment(db: BankingDB | None = None, solo_mode: bool = False) -> Environment:
    if solo_mode:
        raise ValueError("the banking_knowledge domain has no solo mode (its tasks need the user)")
    tools = BankingAgentTools(db if db is not None else load_db())
    return Environment(domain_name=DOMAIN, policy=policy(), tools=tools, user_tools=BankingUserTools(tools))


@cache
def _all_tasks() -> tuple[Task, ...]:
    return tuple(Task.model_validate(raw) for raw in load_raw_tasks())


def get_tasks_split() -> dict[str, list[str]]:
    ids = [task.id for task in _all_tasks()]
    return {"base": ids, "train": ids[::3], "test": [i for n, i in enumerate(ids) if n % 3]}


def get_tasks(task_split_name: str | None = "base") -> list[Task]:
    splits = get_tasks_split()
    if task_split_name not in splits:
        raise ValueError(
            f"unknown banking_knowledge split {task_split_name!r}; choose one of {sorted(splits)}"
        )
    wanted = set(splits[task_split_name])
    return [task.model_copy(deep=True) for task in _all_tasks() if task.id in wanted]
