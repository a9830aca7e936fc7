"""Checkpoint selection plays train tasks that collection did not play, never a test task."""

from __future__ import annotations

import pytest

pytest.importorskip("tau2.domains.airline.environment")

from agenttune.benchmarks.base import load_benchmark  # noqa: E402
from agenttune.pipelines.self_evolve import SELECTION_TASKS, selection_tasks  # noqa: E402
from tests.conftest import compose_config  # noqa: E402


def test_selection_tasks_are_held_out_train_tasks(tmp_path):
    cfg = compose_config(
        ["+experiment=tau2_toolgraph_dpo", "benchmark.domains=[airline,retail]", "benchmark.num_train=3"],
        tmp_path,
    )
    benchmark = load_benchmark(cfg)
    keys = lambda tasks: {(benchmark.domain_of(task), task.id) for task in tasks}  # noqa: E731
    chosen = keys(selection_tasks(benchmark))
    collected = keys(benchmark.tasks("train"))
    tested = keys(benchmark.tasks("eval", 0))
    assert len(chosen) == 2 * SELECTION_TASKS
    assert not chosen & collected and not chosen & tested


def test_a_train_split_used_up_by_collection_fails_before_any_work(tmp_path):
    cfg = compose_config(["+experiment=tau2_toolgraph_dpo", "benchmark.num_train=0"], tmp_path)
    with pytest.raises(ValueError, match="num_train=0 leaves no airline train task"):
        selection_tasks(load_benchmark(cfg))
