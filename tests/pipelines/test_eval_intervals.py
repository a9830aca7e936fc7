"""Every mean an evaluation writes carries /n and a bootstrap interval over tasks, for tau2 and LegalBench-RAG as for
CUAD; per-task scores go to task_scores.json; the summary names what ran."""

from __future__ import annotations

import json

import pytest


def interval_keys(metrics: dict, name: str) -> tuple:
    return metrics[f"{name}/n"], metrics[f"{name}/ci_low"], metrics[name], metrics[f"{name}/ci_high"]


def test_tau2_rates_carry_intervals_and_task_scores(run_pipeline):
    pytest.importorskip("tau2")
    overrides = ["+experiment=tau2_oracle", "benchmark=tau2_airline", "benchmark.num_eval=2"]
    run_dir, summary = run_pipeline([*overrides, "harness.agent=skip_write"])
    assert summary["status"] == "completed", summary["error"]
    metrics = summary["metrics"]
    n, low, mean, high = interval_keys(metrics, "eval/airline/avg_reward")
    assert n == 2 and low <= mean <= high
    assert interval_keys(metrics, "eval/avg_reward")[2] == mean
    assert "eval/airline/low_reward_rate/ci_high" in metrics
    scores = json.loads((run_dir / "task_scores.json").read_text())["eval"]
    assert len(scores) == 2 and all(task.startswith("airline/") for task in scores)
    rewards = [score["airline/avg_reward"] for score in scores.values()]
    assert sum(rewards) / 2 == pytest.approx(mean)
    assert summary["experiment"] == "tau2_oracle" and summary["benchmark"] == "tau2_airline"
    assert summary["pipeline"] == "evaluate" and summary["algorithm"] is None


def test_legalbench_rag_rates_carry_intervals(run_pipeline):
    overrides = [
        "+experiment=legalbench_rag_transfer", "model=tiny_random", "model.max_new_tokens=8",
        "benchmark.corpora=[maud]", "benchmark.num_eval=3", "benchmark.distractor_docs=2",
    ]  # fmt: skip
    _, summary = run_pipeline(overrides)
    assert summary["status"] == "completed", summary["error"]
    metrics = summary["metrics"]
    for name in ("doc@8", "retriever_doc@8", "searches_per_question"):
        n, low, mean, high = interval_keys(metrics, f"eval/maud/{name}")
        assert n == 3 and low <= mean <= high
    assert metrics["eval/maud/queries"] == 3 and metrics["eval/maud/documents"] > 2
    assert summary["model"] == "tiny_random" and summary["experiment"] == "legalbench_rag_transfer"
