"""Run folders: metrics.jsonl per step, summary.json whatever happens, trackers always finished; sweep reports."""

from __future__ import annotations

import json

import pytest
from omegaconf import OmegaConf

from agenttune.config import TrainConfig, repo_root
from agenttune.tracking.report import write_report
from agenttune.tracking.run import RunContext, config_digest


def make_cfg(tmp_path, logger: str):
    cfg = OmegaConf.structured(TrainConfig)
    cfg.merge_with(
        {
            "pipeline": "train_on_logs",
            "algorithm": {"name": "grpo"},
            "model": {"name": "tiny_random", "path": "tiny_random"},
            "benchmark": {"name": "adp_samples"},
            "logger": {"name": logger, "mode": "offline"},
            "paths": {"root": repo_root(), "data_dir": "x", "cache_dir": "x", "output_dir": str(tmp_path)},
        }
    )
    return cfg


def test_failed_job_writes_failed_summary_and_finishes_wandb(tmp_path):
    import wandb

    cfg = make_cfg(tmp_path, "wandb")
    with pytest.raises(RuntimeError, match="boom"):
        with RunContext(cfg, tmp_path) as run:
            run.log({"loss": 1.5}, step=1)
            run.log({"loss": 1.25}, step=2)
            raise RuntimeError("boom")
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["status"] == "failed"
    assert "boom" in summary["error"]
    assert summary["git_commit"] and summary["hardware"]["cpu_count"]
    assert [json.loads(line)["loss"] for line in (tmp_path / "metrics.jsonl").read_text().splitlines()] == [
        1.5,
        1.25,
    ]
    assert wandb.run is None, "the wandb run must be finished even when the job raises"
    assert list(tmp_path.glob("wandb/offline-run-*/run-*.wandb")), "wandb wrote its offline run file"


def test_completed_job_summary_has_metrics_and_digest(tmp_path):
    cfg = make_cfg(tmp_path, "none")
    with RunContext(cfg, tmp_path) as run:
        run.set_summary({"eval/em": 0.5})
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["status"] == "completed"
    assert summary["metrics"] == {"eval/em": 0.5}
    assert summary["config_digest"] == config_digest(cfg)
    assert not (tmp_path / "wandb").exists()


def test_config_digest_ignores_paths_but_not_hyperparameters(tmp_path):
    first, second = make_cfg(tmp_path, "none"), make_cfg(tmp_path / "other", "none")
    assert config_digest(first) == config_digest(second)
    second.algorithm.learning_rate = 3e-4
    assert config_digest(first) != config_digest(second)


def test_report_has_a_row_per_job_and_a_plot(tmp_path):
    for job, (lr, loss) in enumerate([(1e-5, 2.0), (2e-5, 1.5), (4e-5, 1.0)]):
        folder = tmp_path / str(job)
        (folder / ".hydra").mkdir(parents=True)
        (folder / ".hydra" / "overrides.yaml").write_text(
            f"- +experiment=smoke\n- algorithm.learning_rate={lr}\n"
        )
        (folder / "summary.json").write_text(
            json.dumps({"status": "completed", "metrics": {"train/loss": loss}})
        )
    md_path, html_path = write_report(tmp_path)
    rows = [line for line in md_path.read_text().splitlines() if line.startswith("| ") and "job" not in line]
    assert len(rows) == 3 and "2e-05" in rows[1] and "1.5" in rows[1]
    assert list(tmp_path.glob("plot_algorithm.learning_rate_train_loss.png"))
    assert "<table>" in html_path.read_text() and ".png" in html_path.read_text()
