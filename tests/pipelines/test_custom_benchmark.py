"""A benchmark written outside agenttune (examples/arithmetic.py), named on the command line with its config in
examples/conf, runs through the generic evaluate and rl pipelines unchanged."""

from __future__ import annotations

import json
from pathlib import Path

from agenttune.config import repo_root
from agenttune.events import load_jsonl

ARITHMETIC = [
    f"hydra.searchpath=[file://{Path(repo_root()) / 'examples' / 'conf'}]",
    "benchmark=arithmetic",
    "model=tiny_random",
    "model.max_new_tokens=8",
    "strategy.max_turns=2",
]


def test_a_new_benchmark_is_evaluated_by_the_generic_pipeline(run_pipeline):
    run_dir, summary = run_pipeline(["pipeline=evaluate", *ARITHMETIC, "benchmark.num_eval=3"])
    assert summary["status"] == "completed", summary["error"]
    assert summary["metrics"]["eval/episodes"] == 3
    assert len(load_jsonl(run_dir / "eventlogs" / "eval.jsonl")) == 3
    _, oracle = run_pipeline(
        ["pipeline=evaluate", *ARITHMETIC, "benchmark.num_eval=3", "harness.agent=oracle"], "oracle"
    )
    assert oracle["metrics"]["eval/accuracy"] == 1.0  # the benchmark's own scripted agent solves every task


def test_a_new_benchmark_is_trained_by_the_generic_rl_pipeline(run_pipeline):
    overrides = [
        "pipeline=rl", *ARITHMETIC, "benchmark.num_train=2", "benchmark.num_eval=2", "algorithm=grpo",
        "algorithm.max_steps=1", "algorithm.beta=0", "algorithm.num_generations=2", "algorithm.per_device_batch_size=1",
    ]  # fmt: skip
    run_dir, summary = run_pipeline(overrides)
    assert summary["status"] == "completed", summary["error"]
    metrics = summary["metrics"]
    assert metrics["eval_before/episodes"] == metrics["eval_after/episodes"] == 2
    assert metrics["train/global_step"] == 1
    (step,) = load_jsonl(run_dir / "eventlogs" / "train" / "step-0.jsonl")[:1]
    assert step.source == "arithmetic" and step.metadata["policy"]["step"] == 0
    logged = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert any("train/reward/correct" in entry for entry in logged)
