"""Run folders: metrics.jsonl per step, summary.json whatever happens, trackers always finished; sweep reports."""

from __future__ import annotations

import json

import pytest
from omegaconf import OmegaConf

from agenttune.config import repo_root
from agenttune.config_store import TrainConfig
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


def test_summary_names_the_run_and_keeps_final_and_best_trainer_metrics(tmp_path):
    cfg = make_cfg(tmp_path, "none")
    with RunContext(cfg, tmp_path) as run:
        for step, (loss, reward, kl) in enumerate([(2.0, 0.1, 0.0), (1.0, 0.5, 0.3), (1.5, 0.2, 0.1)]):
            run.log(
                {"train/loss": loss, "train/reward": reward, "train/kl": kl, "train/reward/em": 1.0},
                step=step,
            )
        run.log({"distill/loss": float("nan")}, step=3)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["algorithm"] == "grpo" and summary["model"] == "tiny_random"
    assert summary["benchmark"] == "adp_samples" and summary["pipeline"] == "train_on_logs"
    assert "experiment" in summary and "sweep" in summary
    metrics = summary["metrics"]
    assert metrics["train/loss/final"] == 1.5 and metrics["train/loss/best"] == 1.0
    assert metrics["train/reward/final"] == 0.2 and metrics["train/reward/best"] == 0.5
    assert metrics["train/kl/final"] == 0.1 and metrics["train/kl/max"] == 0.3
    assert not any(key.startswith(("train/reward/em/", "distill/loss/")) for key in metrics)


def test_task_scores_of_every_phase_are_kept_in_one_file(tmp_path):
    cfg = make_cfg(tmp_path, "none")
    with RunContext(cfg, tmp_path) as run:
        run.set_task_scores("eval_before", {"q1": {"em": 0.0}})
        run.set_task_scores("eval_after", {"q1": {"em": 1.0}})
    scores = json.loads((tmp_path / "task_scores.json").read_text())
    assert scores == {"eval_before": {"q1": {"em": 0.0}}, "eval_after": {"q1": {"em": 1.0}}}


def test_the_tracker_summary_mirrors_intervals_and_names_the_run(tmp_path, monkeypatch):
    from agenttune.tracking import run as run_module
    from agenttune.tracking.loggers import NullLogger

    received = {}

    class Recording(NullLogger):
        def summary(self, metrics):
            received.update(metrics)

    monkeypatch.setattr(run_module, "make_logger", lambda *args: Recording())
    with RunContext(make_cfg(tmp_path, "wandb"), tmp_path) as run:
        run.set_summary({"eval/em": 0.5, "eval/em/n": 8, "eval/em/ci_low": 0.25, "eval/em/ci_high": 0.75})
    assert received["eval/em/ci_low"] == 0.25 and received["eval/em/n"] == 8
    assert received["algorithm"] == "grpo" and received["status"] == "completed"
