"""BFCL multi-turn tasks as :class:`~agenttune.harness.stateful_tools.StatefulTask` objects.

The Berkeley Function Calling Leaderboard's multi-turn categories (``multi_turn_base`` and kin) give each task
its ``involved_classes`` (GorillaFileSystem, MathAPI, MessageAPI, TwitterAPI, TicketAPI, TradingBot, TravelAPI,
VehicleControlAPI), an ``initial_config`` per class, several user turns in ``question`` and the functions left
out of the tool set (``excluded_function``); each class has JSON function docs. The classes and the data ship
in the ``bfcl-eval`` package. Its declared dependencies are heavy (model clients, vllm-era pins such as
numpy 1.26) and the classes need none of them, so install it without them::

    pip install --no-deps bfcl-eval   # plus mpmath for MathAPI (already there with torch)

Run a task with ``StatefulToolsHarness(bfcl_classes())``. Tasks whose functions appear only in a later turn
(``missed_function``, the ``multi_turn_miss_func`` category) are not supported yet.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

from agenttune.harness.stateful_tools import StatefulTask

INSTALL = "pip install --no-deps bfcl-eval"


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


def bfcl_task(
    record: Mapping[str, Any],
    tool_docs: Mapping[str, Sequence[Mapping[str, Any]]],
    stateless: Sequence[str] = (),
) -> StatefulTask:
    """One record of a BFCL multi-turn question file as a task.

    Args:
        record: the record (``id``, ``question``, ``involved_classes``, ``initial_config``, ...).
        tool_docs: class name -> its JSON function docs; the task's tool specs are those of its classes.
        stateless: classes that take no initial state (BFCL ignores the ``initial_config`` some records give
            them, and so does the task).
    """
    if record.get("missed_function"):
        raise ValueError(f"task {record['id']!r} adds functions in later turns, which is not supported yet")
    turns = []
    for index, messages in enumerate(record["question"]):
        text = "\n".join(m["content"] for m in messages if m["role"] == "user")
        if not text:
            raise ValueError(f"task {record['id']!r}: turn {index} has no user message")
        turns.append(text)
    classes = list(record["involved_classes"])
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
    )


def load_bfcl_tasks(category: str = "multi_turn_base") -> list[StatefulTask]:
    """Every task of one multi-turn ``category`` from the installed package's data (newest file version)."""
    constants = _constants()
    data = resources.files("bfcl_eval") / "data"
    files = sorted(
        f for f in data.iterdir() if f.name.startswith("BFCL_v") and f.name.endswith(f"_{category}.json")
    )
    if not files:
        raise FileNotFoundError(f"bfcl-eval has no question file for category {category!r}")
    docs_folder = data / "multi_turn_func_doc"
    docs = {
        name: [json.loads(line) for line in (docs_folder / file).read_text().splitlines() if line.strip()]
        for name, file in constants.MULTI_TURN_FUNC_DOC_FILE_MAPPING.items()
    }
    records = [json.loads(line) for line in files[-1].read_text().splitlines() if line.strip()]
    return [bfcl_task(record, docs, constants.STATELESS_CLASSES) for record in records]
