"""BFCL multi-turn tasks as :class:`~agenttune.harness.stateful_tools.StatefulTask` objects.

The Berkeley Function Calling Leaderboard's multi-turn categories (``multi_turn_base`` and kin) give each task
its ``involved_classes`` (GorillaFileSystem, MathAPI, MessageAPI, TwitterAPI, TicketAPI, TradingBot, TravelAPI,
VehicleControlAPI), an ``initial_config`` per class, several user turns in ``question`` and the functions left
out of the tool set (``excluded_function``); each class has JSON function docs. The classes and the data ship
in the ``bfcl-eval`` package. Its declared dependencies are heavy (model clients, vllm-era pins such as
numpy 1.26) and the classes need none of them, so install it without them::

    pip install --no-deps bfcl-eval   # plus mpmath for MathAPI (already there with torch)

Run a task with ``StatefulToolsHarness(bfcl_classes())``. The four categories differ as BFCL's own inference does:

* ``multi_turn_miss_func``: the functions of ``missed_function`` are held out of the tool set until their turn,
  whose (empty) user message becomes BFCL's prompting-style message listing their JSON docs
  (``DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_PROMPTING``);
* ``multi_turn_long_context``: every class loads its state with ``long_context=True`` (BFCL's large file
  systems, message and ticket histories);
* ``multi_turn_miss_param``: a turn lacks a parameter the user gives in a later turn (nothing to change here).

The benchmark that scores these tasks with BFCL's own checkers is :mod:`agenttune.benchmarks.bfcl`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

from agenttune.harness.stateful_tools import StatefulTask

INSTALL = "pip install --no-deps bfcl-eval"
CATEGORIES = (
    "multi_turn_base",
    "multi_turn_miss_func",
    "multi_turn_miss_param",
    "multi_turn_long_context",
)


def _constants() -> Any:
    try:
        from bfcl_eval.constants import executable_backend_config
    except ImportError as error:
        raise ImportError(
            f"BFCL's tool classes and tasks come with the bfcl-eval package: {INSTALL}"
        ) from error
    return executable_backend_config


def bfcl_classes() -> dict[str, str]:
    """Class name -> import path of every BFCL tool class, from the installed package's own table."""
    return {name: f"{module}.{name}" for name, module in _constants().CLASS_FILE_PATH_MAPPING.items()}


def bfcl_stateless_classes() -> list[str]:
    """The classes that keep no state (BFCL gives them no initial state)."""
    return list(_constants().STATELESS_CLASSES)


def bfcl_task(
    record: Mapping[str, Any],
    tool_docs: Mapping[str, Sequence[Mapping[str, Any]]],
    stateless: Sequence[str] = (),
    added_tools_message: str = "{functions}",
) -> StatefulTask:
    """One record of a BFCL multi-turn question file as a task.

    Args:
        record: the record (``id``, ``question``, ``involved_classes``, ``initial_config``, ``missed_function``,
            ...).
        tool_docs: class name -> its JSON function docs; the task's tool specs are those of its classes.
        stateless: classes that take no initial state (BFCL ignores the ``initial_config`` some records give
            them, and so does the task).
        added_tools_message: the user message of a turn that adds held-out functions, with ``{functions}`` for
            their docs (BFCL's own message, from :func:`load_bfcl_tasks`).
    """
    classes = list(record["involved_classes"])
    docs = {doc["name"]: doc for name in classes for doc in tool_docs[name]}
    added = {int(turn): list(names) for turn, names in (record.get("missed_function") or {}).items()}
    turns = []
    for index, messages in enumerate(record["question"]):
        text = "\n".join(m["content"] for m in messages if m["role"] == "user")
        if index in added:
            if text:
                raise ValueError(f"task {record['id']!r}: turn {index} adds functions but has a user message")
            text = added_tools_message.format(functions=[docs[name] for name in added[index]])
        if not text:
            raise ValueError(f"task {record['id']!r}: turn {index} has no user message")
        turns.append(text)
    return StatefulTask(
        id=record["id"],
        turns=turns,
        classes=classes,
        initial_state={
            name: state
            for name, state in record.get("initial_config", {}).items()
            if name in classes and name not in stateless
        },
        tool_specs=[doc for name in classes for doc in tool_docs[name]],
        excluded_tools=list(record.get("excluded_function", [])),
        tools_added=added,
        load_options={"long_context": True} if "long_context" in record["id"] else {},
    )


def _jsonl(path: Any) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _category_file(folder: Any, category: str) -> Any:
    """The newest version of ``category``'s file in ``folder`` of the package's data."""
    if category not in CATEGORIES:
        raise ValueError(f"unknown BFCL multi-turn category {category!r}; choose one of {CATEGORIES}")
    files = sorted(
        f for f in folder.iterdir() if f.name.startswith("BFCL_v") and f.name.endswith(f"_{category}.json")
    )
    if not files:
        raise FileNotFoundError(f"bfcl-eval has no file for category {category!r} in {folder}")
    return files[-1]


def bfcl_tool_docs() -> dict[str, list[dict[str, Any]]]:
    """Class name -> its JSON function docs, for every class with multi-turn docs."""
    folder = resources.files("bfcl_eval") / "data" / "multi_turn_func_doc"
    return {
        name: _jsonl(folder / file) for name, file in _constants().MULTI_TURN_FUNC_DOC_FILE_MAPPING.items()
    }


def load_bfcl_records(category: str = "multi_turn_base") -> list[dict[str, Any]]:
    """The raw question records of one multi-turn ``category`` (newest file version)."""
    return _jsonl(_category_file(resources.files("bfcl_eval") / "data", category))


def load_bfcl_ground_truth(category: str = "multi_turn_base") -> dict[str, list[list[str]]]:
    """Task id -> its reference calls per turn (BFCL's ``possible_answer``), each a call in Python syntax."""
    folder = resources.files("bfcl_eval") / "data" / "possible_answer"
    return {record["id"]: record["ground_truth"] for record in _jsonl(_category_file(folder, category))}


def load_bfcl_tasks(category: str = "multi_turn_base") -> list[StatefulTask]:
    """Every task of one multi-turn ``category`` from the installed package's data (newest file version)."""
    from bfcl_eval.constants.default_prompts import DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_PROMPTING

    docs, stateless = bfcl_tool_docs(), bfcl_stateless_classes()
    return [
        bfcl_task(record, docs, stateless, DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_PROMPTING)
        for record in load_bfcl_records(category)
    ]
