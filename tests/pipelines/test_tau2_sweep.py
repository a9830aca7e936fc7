"""The dpo_grid_smoke sweep runs as ``python train.py +sweep=dpo_grid_smoke`` and scripts/report.py tabulates it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agenttune.config import repo_root

pytest.importorskip("tau2")


@pytest.mark.slow
def test_dpo_grid_smoke_sweep_and_report(tmp_path):
    root = Path(repo_root())
    env = {**os.environ, "WANDB_MODE": "offline", "HF_HUB_OFFLINE": "1"}
    sweep_dir = tmp_path / "sweep"
    subprocess.run(
        [sys.executable, "train.py", "+sweep=dpo_grid_smoke", f"hydra.sweep.dir={sweep_dir}"],
        cwd=root,
        env=env,
        check=True,
        timeout=3600,
    )
    jobs = sorted(p for p in sweep_dir.iterdir() if (p / "summary.json").exists())
    assert len(jobs) == 4
    subprocess.run([sys.executable, "scripts/report.py", str(sweep_dir)], cwd=root, env=env, check=True)
    report = (sweep_dir / "report.md").read_text()
    assert "| job | beta | lr | steps | chosen_reward_sign | selected |" in report
    assert report.count("| * |") == 1, "exactly one selected configuration"


def test_report_marks_the_selected_tau2_configuration(tmp_path):
    import json

    import yaml

    from agenttune.tracking.report import write_report

    # the ToolGraph + DPO reward's interval: inside the baseline's [0.0, 0.2], apart from it, none
    intervals = [(0.0, 0.1), (0.3, 0.7), None]
    for job, (beta, e2e, chosen) in enumerate([(0.1, 0.0, -0.01), (0.2, 0.5, 0.02), (0.3, 0.5, 0.01)]):
        folder = tmp_path / str(job)
        (folder / ".hydra").mkdir(parents=True)
        (folder / ".hydra" / "overrides.yaml").write_text(yaml.safe_dump([f"algorithm.beta={beta}"]))
        config = {"algorithm": {"beta": beta, "learning_rate": 5e-6, "max_steps": 2}}
        (folder / ".hydra" / "config.yaml").write_text(yaml.safe_dump(config))
        metrics = {
            "selected_checkpoint": "checkpoint-2",
            "select_e2e_reward": e2e,
            "select_chosen_reward": chosen,
            "eval/toolgraph_dpo/retail/avg_reward": e2e,
            "eval/toolgraph_dpo/avg_reward": e2e,
            "eval/baseline/avg_reward": 0.0,
            "eval/baseline/avg_reward/ci_low": 0.0,
            "eval/baseline/avg_reward/ci_high": 0.2,
        }
        if intervals[job]:
            low, high = intervals[job]
            metrics |= {
                "eval/toolgraph_dpo/avg_reward/ci_low": low,
                "eval/toolgraph_dpo/avg_reward/ci_high": high,
            }
        (folder / "summary.json").write_text(json.dumps({"status": "completed", "metrics": metrics}))
    md_path, _ = write_report(tmp_path)
    lines = md_path.read_text().splitlines()
    assert lines[2].startswith(
        "| job | beta | lr | steps | chosen_reward_sign | selected | overlaps_baseline |"
    )
    assert lines[4].startswith("| 0 | 0.1 | 5e-06 | 2 | - |  | yes |")
    assert lines[5].startswith("| 1 | 0.2 | 5e-06 | 2 | + | * | no |")
    assert lines[6].startswith("| 2 | 0.3 | 5e-06 | 2 | + |  |  |")
    assert "eval/toolgraph_dpo/retail/avg_reward" in lines[2]
