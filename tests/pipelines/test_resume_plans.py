"""resume=true after a completed run does nothing and says so; a larger max_steps continues the earlier run's
checkpoint; any other change names the keys that differ and starts fresh; a run killed after its last checkpoint
resumes without training past max_steps."""

from __future__ import annotations

import json
import logging
import shutil

import pytest

pytestmark = pytest.mark.slow  # six short training jobs

SMOKE = [
    "+experiment=smoke",
    "model=tiny_random",
    "algorithm=sft",
    "benchmark.num_train=2",
    "algorithm.max_steps=2",
    "algorithm.save_steps=1",
]


def metric_lines(run_dir):
    return (
        [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
        if (run_dir / "metrics.jsonl").exists()
        else []
    )


def test_resume_after_completion_a_larger_max_steps_and_a_changed_config(run_pipeline, caplog):
    first_dir, first = run_pipeline(SMOKE, name="runs/1")
    assert first["metrics"]["train/global_step"] == 2

    with caplog.at_level(logging.WARNING):
        again_dir, again = run_pipeline([*SMOKE, "resume=true"], name="runs/2")
    assert again["status"] == "completed"
    assert again["metrics"]["resume/completed_run"] == str(first_dir)
    assert "train/global_step" not in again["metrics"] and not metric_lines(again_dir), "it trained nothing"
    assert not (again_dir / "checkpoints").exists() and not (again_dir / "eventlogs").exists()
    assert f"{first_dir} already completed this config: nothing to do" in caplog.text

    caplog.clear()
    with caplog.at_level(logging.WARNING):
        _, longer = run_pipeline(
            [*SMOKE[:-2], "algorithm.max_steps=3", "algorithm.save_steps=1", "resume=true"], name="runs/3"
        )
    assert longer["metrics"]["train/resumed_from"] == str(first_dir / "checkpoints" / "checkpoint-2")
    assert longer["metrics"]["train/global_step"] == 3
    assert "with algorithm.max_steps (2 -> 3)" in caplog.text

    caplog.clear()
    with caplog.at_level(logging.WARNING):
        _, changed = run_pipeline([*SMOKE, "algorithm.learning_rate=0.001", "resume=true"], name="runs/4")
    assert changed["metrics"]["train/resumed_from"] is None
    assert changed["metrics"]["train/global_step"] == 2
    assert "differs in algorithm.learning_rate" in caplog.text and "starting fresh" in caplog.text

    # a run killed after its last checkpoint (before its summary): resuming it trains no step past max_steps
    killed = first_dir.parent / "5"
    shutil.copytree(first_dir, killed)
    (killed / "summary.json").unlink()
    _, after_kill = run_pipeline([*SMOKE, "resume=true"], name="runs/6")
    assert after_kill["metrics"]["train/resumed_from"] == str(killed / "checkpoints" / "checkpoint-2")
    assert after_kill["metrics"]["train/global_step"] == 2
