"""A Hydra multirun of the smoke experiment: one numbered folder per job, then a local report with a plot."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from agenttune.config import repo_root

pytestmark = pytest.mark.slow


def test_multirun_writes_a_folder_per_job_and_a_report(tmp_path):
    sweep_dir = tmp_path / "sweep"
    command = [
        sys.executable,
        "train.py",
        "-m",
        "+experiment=smoke",
        "model=tiny_random",
        "algorithm.learning_rate=1e-5,1e-3",  # far enough apart to change the final loss
        "benchmark.num_train=1",
        "benchmark.max_prompt_turns=1",
        f"hydra.sweep.dir={sweep_dir}",
    ]
    env = {**os.environ, "WANDB_MODE": "offline"}
    subprocess.run(command, cwd=repo_root(), env=env, check=True, capture_output=True, timeout=900)
    jobs = sorted(p.name for p in sweep_dir.iterdir() if (p / "summary.json").exists())
    assert jobs == ["0", "1"]
    summaries = [json.loads((sweep_dir / job / "summary.json").read_text()) for job in jobs]
    assert [s["status"] for s in summaries] == ["completed", "completed"]
    subprocess.run(
        [sys.executable, "scripts/report.py", str(sweep_dir)], cwd=repo_root(), check=True, timeout=120
    )
    report = (sweep_dir / "report.md").read_text()
    assert "learning_rate=1e-05" in report and "learning_rate=0.001" in report  # Hydra normalises them
    assert list(sweep_dir.glob("plot_algorithm.learning_rate_*.png")), (
        "a metric plotted against the swept value"
    )
