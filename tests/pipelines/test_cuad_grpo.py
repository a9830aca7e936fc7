"""The main job's pipeline end to end on the tiny model: index, eval, teacher warm start, GRPO with search, eval."""

from __future__ import annotations

import json

from agenttune.events import load_jsonl
from agenttune.events.schema import EventKind

TINY_BUDGET = [
    "+experiment=cuad_grpo",
    "model=tiny_random",
    "benchmark.num_train=2",
    "benchmark.num_eval=2",
    "benchmark.max_docs=4",
    "warm_start.num_questions=6",
    "warm_start.algorithm.max_steps=1",
    "algorithm.max_steps=1",
    "algorithm.num_generations=2",
    "algorithm.max_completion_length=32",
    "model.max_new_tokens=8",
]


def test_cuad_grpo_warm_starts_then_trains_with_search_calls(run_pipeline):
    run_dir, summary = run_pipeline(TINY_BUDGET)
    assert summary["status"] == "completed", summary["error"]
    metrics = summary["metrics"]
    for phase in ("eval_before", "eval_warm", "eval_after"):  # three points on the same questions
        for name in ("em", "f1", "searches_per_question", "recall@8", "hit@8"):
            assert f"{phase}/{name}" in metrics
    assert (
        metrics["eval_before/em/n"] == 2
        and metrics["eval_before/hit@8/ci_low"] <= metrics["eval_before/hit@8"]
    )
    # after minus before, paired by question; the warm start's change and GRPO's own
    for delta in ("delta", "delta_warm", "delta_rl"):
        assert metrics[f"{delta}/hit@8/n"] == 2
    scores = json.loads((run_dir / "task_scores.json").read_text())  # what the seed report's intervals use
    phases = {"eval_before", "eval_warm", "eval_after", "delta", "delta_warm", "delta_rl"}
    assert set(scores) == phases and len(scores["delta_rl"]) == 2
    assert summary["experiment"] == "cuad_grpo" and summary["benchmark"] == "cuad_search"
    assert summary["algorithm"] == "grpo" and summary["warm_start"] == "sft"
    assert "train/loss/final" in metrics and metrics["distill/loss/best"] <= metrics["distill/loss/final"]
    # the warm start ran the teacher on its own question count and trained the student first
    assert metrics["distill/teacher_episodes"] == 6
    assert metrics["distill/global_step"] == 1
    assert (run_dir / "checkpoints" / "distill" / "final" / "config.json").exists()
    assert not list(
        (run_dir / "checkpoints" / "distill").glob("checkpoint-*")
    )  # nothing resumes a warm start
    kept = load_jsonl(run_dir / "eventlogs" / "teacher_kept.jsonl")
    assert kept and all(any(e.kind == EventKind.TOOL_CALL for e in log.events) for log in kept)
    # then GRPO, whose rollouts search the same index
    assert metrics["train/global_step"] == 1
    steps = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert any("train/reward/evidence" in step for step in steps)


def test_warm_start_off_goes_straight_to_grpo(run_pipeline):
    run_dir, summary = run_pipeline([*TINY_BUDGET, "warm_start.enabled=false"])
    assert summary["status"] == "completed", summary["error"]
    assert "distill/teacher_episodes" not in summary["metrics"]
    assert not (run_dir / "checkpoints" / "distill").exists()
    assert "eval_warm/em" not in summary["metrics"] and "delta_rl/em" not in summary["metrics"]
    assert summary["metrics"]["train/global_step"] == 1
