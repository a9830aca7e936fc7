"""Sweeps on existing engines: ``hydra/launcher=ray`` runs a multirun's jobs as Ray tasks and gives the same
summaries and report as Hydra's basic launcher; ``hydra/launcher=slurm`` composes submitit's SLURM launcher."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agenttune.config import repo_root

ROOT = Path(repo_root())
ENV = {**os.environ, "WANDB_MODE": "offline", "HF_HUB_OFFLINE": "1"}
# dpo_grid_smoke cut to two jobs (two betas) of one DPO step each
SMALL_GRID = [
    "+sweep=dpo_grid_smoke",
    "algorithm.learning_rate=5e-6",  # on the command line it replaces the sweep's two values
    "algorithm.max_steps=1",
    "benchmark.num_train=2",
]


def sweep(folder: Path, *overrides: str) -> dict[str, dict]:
    """Run the small grid into ``folder``; each job's summary metrics by the job's overrides."""
    command = [sys.executable, "train.py", *SMALL_GRID, f"hydra.sweep.dir={folder}", *overrides]
    subprocess.run(command, cwd=ROOT, env=ENV, check=True, timeout=3600)
    subprocess.run([sys.executable, "scripts/report.py", str(folder)], cwd=ROOT, env=ENV, check=True)
    summaries = {}
    for job in sorted(p for p in folder.iterdir() if (p / "summary.json").exists()):
        summary = json.loads((job / "summary.json").read_text())
        assert summary["status"] == "completed", summary.get("error")
        summaries[(job / ".hydra" / "overrides.yaml").read_text()] = summary["metrics"]
    return summaries


@pytest.mark.slow
def test_the_ray_launcher_gives_the_basic_launchers_summaries_and_report(tmp_path):
    pytest.importorskip(
        "hydra_plugins.hydra_ray_launcher", reason='needs the scale extra: pip install -e ".[scale]"'
    )
    pytest.importorskip("tau2")
    basic = sweep(tmp_path / "basic")
    on_ray = sweep(tmp_path / "ray", "hydra/launcher=ray", "+hydra.launcher.ray.init.num_cpus=2")
    assert len(basic) == 2 and basic.keys() == on_ray.keys()
    for overrides, metrics in basic.items():
        assert on_ray[overrides].keys() == metrics.keys()
        evaluated = [key for key in metrics if key.startswith("eval/")]
        assert evaluated and all(on_ray[overrides][key] == metrics[key] for key in evaluated)
    assert (tmp_path / "ray" / "report.md").read_text().count("| * |") == 1


def test_the_slurm_launcher_composes_with_one_gpu_per_job():
    pytest.importorskip("hydra_plugins.hydra_submitit_launcher", reason="needs the scale extra")
    shown = subprocess.run(
        [
            sys.executable,
            "train.py",
            "+sweep=dpo_grid",
            "hydra/launcher=slurm",
            "--cfg",
            "hydra",
            "-p",
            "hydra.launcher",
        ],
        cwd=ROOT,
        env=ENV,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "SlurmLauncher" in shown and "gpus_per_node: 1" in shown
