"""Training rows projected from a workflow's audit log file alone (nothing read from the run's memory).

The episodes are the audit lines of agent and evaluate nodes (``metadata.kind``); each carries the episode REWARD
``total`` the ``reward`` group gave it. From them:

- SFT rows: the episodes whose reward is at least ``min_reward`` (weighted SFT, :func:`sft_rows`);
- DPO rows: for each task, its best episode against its worst when their rewards differ (:func:`dpo_row_by_reward`);
- RL rows: every full-tier episode (token ids, generated-token mask, logprobs, reward; :func:`rl_row`). A
  redacted episode is light tier (see :mod:`agenttune.workflows.audit`) and gives no RL row.
"""

from __future__ import annotations

import os
from collections import defaultdict
from typing import Any

from agenttune.events.io import load_jsonl
from agenttune.events.projections import dpo_row_by_reward, rl_row, sft_rows
from agenttune.events.schema import EventLog

EPISODE_KINDS = ("agent", "evaluate")


def audit_episodes(path: str | os.PathLike) -> list[EventLog]:
    """The agent episodes recorded in the audit log at ``path``."""
    return [log for log in load_jsonl(path) if log.metadata.get("kind") in EPISODE_KINDS]


def _total(log: EventLog) -> float:
    return log.rewards().get("total", 0.0)


def audit_rows(path: str | os.PathLike, tokenizer: Any, min_reward: float = 0.5) -> dict[str, list[dict]]:
    """``{"sft": [...], "dpo": [...], "rl": [...]}`` projected from the audit log at ``path``."""
    episodes = audit_episodes(path)
    by_task: dict[str, list[EventLog]] = defaultdict(list)
    for log in episodes:
        by_task[log.task_id].append(log)
    dpo = []
    for logs in by_task.values():
        ranked = sorted(logs, key=_total)
        if len(ranked) > 1 and _total(ranked[0]) != _total(ranked[-1]):
            dpo.append(dpo_row_by_reward(ranked[-1], ranked[0]))
    return {
        "sft": sft_rows([log for log in episodes if _total(log) >= min_reward], tokenizer),
        "dpo": dpo,
        "rl": [rl_row(log) for log in episodes if log.tier == "full"],
    }


def audit_training_data(path: str | os.PathLike, algorithm, tokenizer):
    """The :class:`~agenttune.training.TrainingData` ``algorithm`` trains on, from the audit log's episodes (the
    log-dataset rules of :func:`agenttune.training.log_datasets.training_data`)."""
    from agenttune.training.log_datasets import training_data

    episodes = audit_episodes(path)
    if not episodes:
        raise ValueError(f"{path}: the audit log holds no agent episodes to train on")
    return training_data(algorithm, episodes, tokenizer)
