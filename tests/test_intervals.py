"""Bootstrap intervals against cases whose answer is known, and paired deltas matched by task."""

from __future__ import annotations

import math

import numpy as np
import pytest

from agenttune.stats import (
    mean_interval,
    paired_deltas,
    paired_differences,
    seed_task_interval,
    task_means,
    with_intervals,
)


def test_a_proportion_gets_the_normal_approximation_interval():
    values = [0.0, 1.0] * 200  # p = 0.5, n = 400: 0.5 +- 1.96 * sqrt(0.25 / 400) = 0.5 +- 0.049
    low, high = mean_interval(values, seed=0)
    half = 1.96 * math.sqrt(0.25 / 400)
    assert low == pytest.approx(0.5 - half, abs=0.01) and high == pytest.approx(0.5 + half, abs=0.01)


def test_intervals_are_seedable_and_constant_values_have_none():
    values = [0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0]
    assert mean_interval(values, seed=3) == mean_interval(values, seed=3)
    assert mean_interval([0.25] * 10) == (0.25, 0.25)


def test_with_intervals_reports_mean_n_and_bounds_per_metric():
    scores = [
        {"em": 1.0, "hit": 1.0},
        {"em": 0.0, "hit": 1.0},
        {"em": 1.0, "hit": 0.0},
        {"em": 0.0, "hit": 1.0},
    ]
    metrics = with_intervals(scores)
    assert metrics["em"] == 0.5 and metrics["em/n"] == 4 and metrics["hit"] == 0.75
    assert 0.0 <= metrics["em/ci_low"] < 0.5 < metrics["em/ci_high"] <= 1.0


def test_paired_deltas_match_tasks_and_ignore_unshared_ones():
    before = {f"t{i}": {"em": 0.0} for i in range(100)}
    after = {f"t{i}": {"em": float(i % 2)} for i in range(100)} | {"new": {"em": 1.0}}
    deltas = paired_deltas(paired_differences(before, after))
    assert deltas["delta/em"] == 0.5 and deltas["delta/em/n"] == 100
    assert deltas["delta/em/ci_low"] > 0.35 and deltas["delta/em/ci_high"] < 0.65  # above zero: improved


def test_task_means_count_a_repeated_task_once():
    means = task_means([("a", {"r": 1.0}), ("b", {"r": 0.0}), ("a", {"r": 0.0}), ("a", {"r": 0.5})])
    assert means == {"a": {"r": 0.5}, "b": {"r": 0.0}}


def test_seed_task_interval_over_tasks_alone_is_the_proportion_interval():
    row = [0.0, 1.0] * 200  # every seed scores the tasks alike: only the tasks vary
    low, high = seed_task_interval(np.array([row, row, row]))
    half = 1.96 * math.sqrt(0.25 / 400)
    assert low == pytest.approx(0.5 - half, abs=0.01) and high == pytest.approx(0.5 + half, abs=0.01)


def test_seed_task_interval_over_seeds_alone_is_the_proportion_interval():
    seeds = np.array([[float(s % 2)] * 5 for s in range(400)])  # each seed scores all 5 tasks alike
    low, high = seed_task_interval(seeds, seed=1)
    half = 1.96 * math.sqrt(0.25 / 400)
    assert low == pytest.approx(0.5 - half, abs=0.01) and high == pytest.approx(0.5 + half, abs=0.01)


def test_seed_task_interval_holds_both_sources_of_spread():
    rng = np.random.default_rng(0)
    tasks = rng.random(50)  # task difficulty, shared by every seed
    scores = tasks[None, :] + np.array([[-0.2], [0.0], [0.2]])  # three training runs of different quality
    low, high = seed_task_interval(scores)
    task_low, task_high = seed_task_interval(scores[1:2])
    assert low < task_low and high > task_high and low < scores.mean() < high
    assert seed_task_interval(scores, seed=4) == seed_task_interval(scores, seed=4)
    assert seed_task_interval(np.full((3, 4), 0.5)) == (0.5, 0.5)
    with pytest.raises(ValueError, match="seeds x tasks"):
        seed_task_interval(np.array([0.1, 0.2]))
