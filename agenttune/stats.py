"""95% intervals for evaluation metrics: a bootstrap over tasks (``scipy.stats.bootstrap``), seedable.

:func:`with_intervals` turns per-task scores into ``<metric>``, ``<metric>/n``, ``<metric>/ci_low`` and
``<metric>/ci_high`` (:func:`task_means` first averages the episodes of a task that ran several times, so the
bootstrap resamples tasks, not episodes); :func:`paired_deltas` does the same for after-minus-before differences of
the tasks two evaluations share (``delta/<metric>``), the paired comparison that says whether a change improved a
metric (its interval lies above zero). :func:`seed_task_interval` is the interval of a mean over several training
seeds evaluated on the same tasks.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
from scipy.stats import bootstrap

CONFIDENCE = 0.95
RESAMPLES = 9999

TaskScores = Mapping[str, Mapping[str, float]]  # task id -> metric -> value


def mean_interval(values: Sequence[float], seed: int = 0) -> tuple[float, float]:
    """The 95% percentile-bootstrap interval of the mean of ``values`` (the mean itself when they do not vary).

    >>> mean_interval([1.0, 1.0, 1.0])
    (1.0, 1.0)
    """
    data = np.asarray(values, dtype=float)
    if data.size < 2 or np.all(data == data[0]):
        mean = float(data.mean()) if data.size else float("nan")
        return mean, mean
    result = bootstrap(
        (data,),
        np.mean,
        confidence_level=CONFIDENCE,
        n_resamples=RESAMPLES,
        method="percentile",
        rng=np.random.default_rng(seed),
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def task_means(scores: Iterable[tuple[str, Mapping[str, float]]]) -> dict[str, dict[str, float]]:
    """(task id, one episode's scores) pairs -> each task's mean of every metric over its episodes, in first-seen
    task order (a task repeated, e.g. tau2's trials, counts once)."""
    grouped: dict[str, dict[str, list[float]]] = {}
    for task, score in scores:
        for name, value in score.items():
            grouped.setdefault(task, {}).setdefault(name, []).append(float(value))
    return {
        task: {name: float(np.mean(v)) for name, v in metrics.items()} for task, metrics in grouped.items()
    }


def with_intervals(scores: Sequence[Mapping[str, float]], seed: int = 0) -> dict[str, float]:
    """The mean of every metric of ``scores`` (one mapping per task) with its ``/n``, ``/ci_low`` and ``/ci_high``."""
    metrics: dict[str, float] = {}
    for name in dict.fromkeys(key for score in scores for key in score):
        values = [score[name] for score in scores if name in score]
        low, high = mean_interval(values, seed)
        metrics |= {
            name: float(np.mean(values)),
            f"{name}/n": len(values),
            f"{name}/ci_low": low,
            f"{name}/ci_high": high,
        }
    return metrics


def paired_differences(before: TaskScores, after: TaskScores) -> dict[str, dict[str, float]]:
    """After minus before of every metric, for each task both hold (keyed by task id)."""
    return {
        task: {name: after[task][name] - value for name, value in before[task].items() if name in after[task]}
        for task in before
        if task in after
    }


def paired_deltas(differences: TaskScores, seed: int = 0, name: str = "delta") -> dict[str, float]:
    """``<name>/<metric>``: the mean of :func:`paired_differences`' after-minus-before values with its interval."""
    return {f"{name}/{key}": value for key, value in with_intervals(list(differences.values()), seed).items()}


def seed_task_interval(scores: np.ndarray, seed: int = 0) -> tuple[float, float]:
    """The 95% interval of the mean of ``scores[s, t]`` (training seed ``s``, task ``t``; every seed evaluated on
    the same tasks) by a two-way bootstrap: each resample draws seeds with replacement and, independently, tasks
    with replacement, and takes the mean of the crossed cells, so the interval holds both the spread between
    training runs and the sampling of the tasks. Seeds and tasks are crossed, not nested (the held-out tasks are
    the same for every seed), so tasks are not resampled separately within each seed. With one seed it is the
    bootstrap over tasks; with one task, the bootstrap over seeds.
    """
    data = np.asarray(scores, dtype=float)
    if data.ndim != 2 or data.size == 0:
        raise ValueError(f"scores must be a non-empty seeds x tasks matrix, got shape {data.shape}")
    if np.all(data == data.flat[0]):
        return float(data.flat[0]), float(data.flat[0])
    seeds, tasks = data.shape
    rng = np.random.default_rng(seed)
    seed_counts = rng.multinomial(seeds, np.full(seeds, 1 / seeds), size=RESAMPLES)
    task_counts = rng.multinomial(tasks, np.full(tasks, 1 / tasks), size=RESAMPLES)
    means = np.einsum("bs,st,bt->b", seed_counts, data, task_counts) / (seeds * tasks)
    tail = (1 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return float(low), float(high)
