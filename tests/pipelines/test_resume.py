"""resume=true continues an interrupted run of the same config from its last checkpoint, at the same step."""

from __future__ import annotations

import shutil

SMOKE = [
    "+experiment=smoke",
    "model=tiny_random",
    "algorithm=sft",
    "benchmark.num_train=2",
    "algorithm.max_steps=2",
    "algorithm.save_steps=1",
]


def test_resume_continues_from_the_last_checkpoint_of_the_same_config(run_pipeline, tmp_path):
    first_dir, first = run_pipeline(SMOKE, name="runs/first")
    assert first["metrics"]["train/global_step"] == 2
    # Leave the first run as a run killed after step 1 would: only checkpoint-1, no summary.
    shutil.rmtree(first_dir / "checkpoints" / "checkpoint-2")
    shutil.rmtree(first_dir / "checkpoints" / "final")
    (first_dir / "summary.json").unlink()

    _, resumed = run_pipeline([*SMOKE, "resume=true"], name="runs/second")
    assert resumed["metrics"]["train/resumed_from"].endswith("checkpoint-1")
    assert resumed["metrics"]["train/global_step"] == 2

    _, other = run_pipeline([*SMOKE, "resume=true", "algorithm.learning_rate=3e-4"], name="runs/third")
    assert other["metrics"]["train/resumed_from"] is None, "a different config never resumes another run"
