"""95% intervals for evaluation metrics: a bootstrap over tasks (``scipy.stats.bootstrap``), seedable.

:func:`with_intervals` turns per-episode scores into ``<metric>``, ``<metric>/n``, ``<metric>/ci_low`` and
``<metric>/ci_high``; :func:`paired_deltas` does the same for after-minus-before differences of the tasks two
evaluations share (``delta/<metric>``), the paired comparison that says whether a change improved a metric (its
interval lies above zero).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from scipy.stats import bootstrap

CONFIDENCE = 0.95
RESAMPLES = 9999


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


def with_intervals(scores: Sequence[Mapping[str, float]], seed: int = 0) -> dict[str, float]:
    """The mean of every metric of ``scores`` (one mapping per episode) with its ``/n``, ``/ci_low`` and ``/ci_high``."""
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


def paired_deltas(
    before: Mapping[str, Mapping[str, float]], after: Mapping[str, Mapping[str, float]], seed: int = 0
) -> dict[str, float]:
    """``delta/<metric>`` (mean of after minus before over the tasks both hold, keyed by task id) with its interval."""
    shared = [task for task in before if task in after]
    differences = [
        {name: after[task][name] - before[task][name] for name in before[task] if name in after[task]}
        for task in shared
    ]
    return {f"delta/{key}": value for key, value in with_intervals(differences, seed).items()}
