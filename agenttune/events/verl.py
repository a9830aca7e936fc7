"""Export to verl's RL dataset layout: one parquet row per task prompt.

Each row has ``data_source`` (the log's source), ``prompt`` (the chat messages before the first assistant
turn: system and user text), ``ability``, ``reward_model`` (``{"style": "rule", "ground_truth": [answers]}``)
and ``extra_info`` (index, split, log and task ids, the scoring ``metric``, and the log's tool schemas as JSON
text). Ground truth is always a list of strings so every row has one Arrow type. The matching reward is
:func:`agenttune.rewards.verl.compute_score`; point verl's ``custom_reward_function.path`` at that file.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agenttune.events.projections.messages import chat_messages
from agenttune.events.schema import EventLog

GROUND_TRUTH_KEYS = ("ground_truth", "answer", "answers")


def verl_row(
    log: EventLog,
    index: int,
    *,
    ground_truth: str | list[str] | None = None,
    ability: str = "agent",
    split: str = "train",
    metric: str = "exact_match",
) -> dict[str, Any]:
    """One verl row; ``ground_truth`` defaults to the log's ``metadata`` under one of :data:`GROUND_TRUTH_KEYS`."""
    messages = chat_messages(log)
    first_reply = next((i for i, m in enumerate(messages) if m["role"] == "assistant"), len(messages))
    prompt = [{"role": m["role"], "content": m["content"]} for m in messages[:first_reply]]
    if not any(m["role"] == "user" for m in prompt):
        raise ValueError(f"log {log.id!r} has no user message before the first assistant turn")
    if ground_truth is None:
        ground_truth = next((log.metadata[key] for key in GROUND_TRUTH_KEYS if key in log.metadata), None)
    if ground_truth is None:
        raise ValueError(f"log {log.id!r} has no ground truth; pass it or set metadata['ground_truth']")
    answers = [ground_truth] if isinstance(ground_truth, str) else [str(answer) for answer in ground_truth]
    return {
        "data_source": log.source or "agenttune",
        "prompt": prompt,
        "ability": ability,
        "reward_model": {"style": "rule", "ground_truth": answers},
        "extra_info": {
            "index": index,
            "split": split,
            "log_id": log.id,
            "task_id": log.task_id,
            "metric": metric,
            "tools": json.dumps(log.tools, ensure_ascii=False),
        },
    }


def write_verl_parquet(logs: Iterable[EventLog], path: str | os.PathLike, **kwargs: Any) -> int:
    """Write one verl row per log to ``path``; return the row count. ``kwargs`` go to :func:`verl_row`."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [verl_row(log, index, **kwargs) for index, log in enumerate(logs)]
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), str(path))
    return len(rows)
