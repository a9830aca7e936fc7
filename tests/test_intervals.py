"""Bootstrap intervals against cases whose answer is known, and paired deltas matched by task."""

from __future__ import annotations

import math

import pytest

from agenttune.tracking.intervals import mean_interval, paired_deltas, with_intervals


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
    deltas = paired_deltas(before, after)
    assert deltas["delta/em"] == 0.5 and deltas["delta/em/n"] == 100
    assert deltas["delta/em/ci_low"] > 0.35 and deltas["delta/em/ci_high"] < 0.65  # above zero: improved
