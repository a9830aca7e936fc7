"""A tau2 task's key before it is played is the key of its episode: task ids repeat across domains, so a resumed
job matches the episodes its killed run recorded to tasks by domain and id."""

from __future__ import annotations

import pytest

pytest.importorskip("tau2")

from agenttune.benchmarks.base import load_benchmark  # noqa: E402
from agenttune.stages.phases import play  # noqa: E402
from tests.conftest import compose_config  # noqa: E402


def test_a_tasks_key_is_its_episodes_key_in_every_domain(tmp_path):
    cfg = compose_config(
        [
            "+experiment=tau2_oracle",
            "benchmark=tau2_telecom",
            "benchmark.domains=[airline,telecom]",
            "benchmark.num_eval=2",
        ],
        tmp_path,
    )
    benchmark = load_benchmark(cfg)
    tasks = benchmark.tasks("eval")
    logs = play(cfg, benchmark, lambda task: benchmark.teacher(task, None), tasks)
    keys = [benchmark.task_key_of(task, index) for index, task in enumerate(tasks)]
    assert keys == [benchmark.task_key(log) for log in logs]
    assert {key.split("/")[0] for key in keys} == {"airline", "telecom"}
