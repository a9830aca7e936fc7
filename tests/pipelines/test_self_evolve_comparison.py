"""The self-evolution evaluation's comparison with the baseline: improved/regressed task counts and the paired
reward change with its interval, per domain; the scores per task in task_scores.json, where compare_runs and the
report over seeds read them."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

pytest.importorskip("tau2.domains.telecom.environment")

from agenttune.benchmarks.base import load_benchmark  # noqa: E402
from agenttune.pipelines.self_evolve import compare_variants  # noqa: E402
from agenttune.stages.phases import play  # noqa: E402
from agenttune.tracking.compare import compare_runs  # noqa: E402
from agenttune.tracking.jobs import JobRow  # noqa: E402
from agenttune.tracking.run import RunContext  # noqa: E402
from agenttune.tracking.seeds import task_matrix  # noqa: E402
from tests.conftest import compose_config  # noqa: E402


def test_paired_reward_change_per_domain_against_the_baseline(tmp_path):
    cfg = compose_config(
        ["+experiment=tau2_oracle", "benchmark=tau2_telecom", "benchmark.num_eval=6"], tmp_path
    )
    benchmark = load_benchmark(cfg)
    tasks = benchmark.tasks("eval")
    agent = lambda kind: lambda task: benchmark.teacher(task, None, kind)  # noqa: E731
    baseline = play(cfg, benchmark, agent("skip_write"), tasks)
    variants = {
        "baseline": baseline,
        "toolgraph_dpo": play(cfg, benchmark, agent("oracle"), tasks),
        "same": baseline,
    }
    with RunContext(cfg, tmp_path / "run") as run:
        metrics = compare_variants(cfg, run, benchmark, {"telecom": benchmark.domain("telecom")}, variants)

    rewards = [log.metadata["reward"] for log in baseline]
    assert any(r < 1.0 for r in rewards), "skip_write should fail some of these tasks"
    gain = sum(1.0 - r for r in rewards) / len(rewards)  # the oracle scores 1.0 everywhere
    assert metrics["eval/toolgraph_dpo/telecom/improved"] == sum(r < 1.0 for r in rewards)
    assert metrics["eval/toolgraph_dpo/telecom/regressed"] == 0
    assert math.isclose(metrics["eval/toolgraph_dpo/telecom/delta/avg_reward"], gain)
    assert metrics["eval/toolgraph_dpo/telecom/delta/avg_reward/n"] == len(tasks)
    low, high = (metrics[f"eval/toolgraph_dpo/telecom/delta/avg_reward/ci_{end}"] for end in ("low", "high"))
    assert 0.0 <= low <= gain <= high <= 1.0
    assert "eval/toolgraph_dpo/telecom/delta/telecom/avg_reward" not in metrics  # overall scores only
    same = [metrics[f"eval/same/telecom/delta/avg_reward{end}"] for end in ("", "/ci_low", "/ci_high")]
    assert same == [0.0, 0.0, 0.0]  # no change: a zero-width interval at zero
    # the third variant against the one before it: the skip_write baseline again, minus the oracle
    assert math.isclose(metrics["eval/same/telecom/minus_toolgraph_dpo/avg_reward"], -gain)
    # the second variant's one before it is the baseline: its delta says that
    assert "eval/toolgraph_dpo/telecom/minus_baseline/avg_reward" not in metrics
    assert metrics["eval/baseline/avg_reward/n"] == len(tasks)
    base_low, base_high = (
        metrics["eval/baseline/avg_reward/ci_low"],
        metrics["eval/baseline/avg_reward/ci_high"],
    )
    assert base_low <= sum(rewards) / len(rewards) <= base_high

    by_phase = json.loads((tmp_path / "run" / "task_scores.json").read_text())
    assert set(by_phase) >= {
        "eval/baseline",
        "eval/toolgraph_dpo",
        "eval/toolgraph_dpo/telecom/delta",
        "eval/same/telecom/minus_toolgraph_dpo",
    }
    assert len(by_phase["eval/baseline"]) == len(tasks)
    rows = compare_runs(tmp_path / "run", tmp_path / "run", "eval/baseline", "eval/toolgraph_dpo")
    assert math.isclose(rows["avg_reward"]["b_minus_a"], gain)  # the same pairing, from the run folder
    row = JobRow("seed0", {"seed": "0"}, "completed", task_scores=by_phase)
    matrix = task_matrix([row], "eval/toolgraph_dpo/telecom/delta/avg_reward")
    assert matrix is not None and math.isclose(
        float(np.mean(matrix)), gain
    )  # the delta phase, not eval/toolgraph_dpo
