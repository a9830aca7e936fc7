"""Jobs that differ only by ``seed`` (``+sweep=seeds``) as one report row: the mean over seeds and a 95% interval
over seeds and tasks.

For a metric an evaluation wrote per task (``task_scores.json``: ``<phase>/<metric>``, and ``delta/<metric>`` for
before/after pairs) the row's value is the mean of the seeds x tasks matrix of per-task scores (the tasks every seed
evaluated) and its interval is :func:`~agenttune.stats.seed_task_interval`: a two-way bootstrap that
resamples seeds and, independently, tasks. Seeds and tasks are crossed, not nested (every seed is evaluated on the
same held-out tasks), so this is neither a hierarchical bootstrap (tasks resampled within each resampled seed) nor
a pooling of per-task scores across seeds (which would treat the same task under three seeds as three tasks and
give too narrow an interval). For any other numeric metric (a final training loss, a count) the value is the mean
over seeds and the interval the bootstrap over seeds alone. ``<metric>/n`` is the tasks, ``<metric>/seeds`` the
seeds.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import replace

import numpy as np

from agenttune.stats import seed_task_interval
from agenttune.tracking.jobs import JobRow

SEED_KEY = "seed"
# how a job was run, not what it measures: a job that continued a killed one belongs with the uninterrupted seeds
RUN_KEYS = frozenset({"resume"})


def job_seed(row: JobRow) -> str | None:
    """The job's seed: its ``seed`` override, else the seed of its composed config (a run at the default seed)."""
    return row.overrides.get(SEED_KEY, row.config.get(SEED_KEY))


def seed_groups(rows: Sequence[JobRow], varying: Collection[str] = ()) -> list[list[JobRow]]:
    """Rows grouped by their overrides other than ``seed``, ``resume`` and the keys in ``varying`` (set per seed:
    ``init_from`` where a seed starts from its own training of the same student), in first-seen order."""
    ignored = {SEED_KEY, *RUN_KEYS, *varying}
    groups: dict[tuple, list[JobRow]] = {}
    for row in rows:
        key = tuple(sorted((k, v) for k, v in row.overrides.items() if k not in ignored))
        groups.setdefault(key, []).append(row)
    return list(groups.values())


def has_seed_groups(rows: Sequence[JobRow], varying: Collection[str] = ()) -> bool:
    """Whether some jobs differ only by ``seed`` (and ``resume`` and the keys in ``varying``)."""
    return any(len({job_seed(row) for row in group}) > 1 for group in seed_groups(rows, varying))


def task_matrix(group: Sequence[JobRow], metric: str) -> np.ndarray | None:
    """seeds x tasks scores of ``metric`` (``<phase>/<name>``, the longest phase that prefixes it) from each job's
    task_scores.json, over the tasks every job has; None when a job has no per-task scores of it."""
    columns = []
    for row in group:
        phases = [p for p in row.task_scores if metric.startswith(f"{p}/")]
        phase = max(phases, key=len, default=None)  # eval/toolgraph/airline/delta, not eval/toolgraph
        if phase is None:
            return None
        name = metric.removeprefix(f"{phase}/")
        scores = {task: s[name] for task, s in row.task_scores[phase].items() if name in s}
        if not scores:
            return None
        columns.append(scores)
    shared = [task for task in columns[0] if all(task in scores for scores in columns)]
    if not shared:
        return None
    return np.array([[scores[task] for task in shared] for scores in columns], dtype=float)


def merge_seeds(group: Sequence[JobRow], metrics: Sequence[str], seed: int = 0) -> JobRow:
    """One row for jobs that differ only by seed: each of ``metrics`` as its mean with ``/ci_low``, ``/ci_high``,
    ``/seeds`` and (per-task metrics) ``/n``; ``seed`` seeds the bootstrap."""
    merged: dict[str, float] = {}
    for metric in metrics:
        matrix = task_matrix(group, metric)
        if matrix is None:
            values = [row.value(metric) for row in group]
            values = [v for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
            values = [v for v in values if math.isfinite(v)]
            if not values:
                continue
            matrix = np.array(values, dtype=float)[:, None]
        else:
            merged[f"{metric}/n"] = matrix.shape[1]
        low, high = seed_task_interval(matrix, seed)
        merged |= {
            metric: float(matrix.mean()),
            f"{metric}/ci_low": low,
            f"{metric}/ci_high": high,
            f"{metric}/seeds": matrix.shape[0],
        }
    done = sum(row.status == "completed" for row in group)
    seeds = ",".join(job_seed(row) or "?" for row in group)
    keys = dict.fromkeys(key for row in group for key in row.overrides if key != SEED_KEY)
    overrides = {  # a key set per seed lists each of its values once
        key: ",".join(dict.fromkeys(row.overrides[key] for row in group if key in row.overrides))
        for key in keys
    }
    return replace(
        group[0],
        job=",".join(row.job for row in group),
        overrides={**overrides, SEED_KEY: seeds},
        status="completed" if done == len(group) else f"{done}/{len(group)} completed",
        metrics=merged,
        logged={},
        task_scores={},
    )
