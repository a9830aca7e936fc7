"""The run context: every artifact of a job under its Hydra output folder, and a summary written whatever happens.

``RunContext`` owns ``metrics.jsonl`` (one JSON object per logged step), ``summary.json`` (final metrics, config
digest, git commit, wall time, hardware, status, error) and the tracker. ``summary.json`` is the source of truth
for reports; wandb mirrors it. Used as a context manager, a job that raises still writes ``"status": "failed"``
with the error, and the tracker is always finished.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
import time
import traceback
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from agenttune.tracking.loggers import NullLogger, WandbLogger

# Keys that differ between runs of the same experiment without changing what it computes.
DIGEST_EXCLUDES = ("paths", "resume", "logger")


def config_digest(cfg: DictConfig) -> str:
    """A short hash of the resolved config, without hydra, paths, logger and the resume flag.

    Works on a live config and on an earlier run's ``.hydra/config.yaml`` alike (its ``${hydra:...}`` paths are
    dropped before anything is resolved).
    """
    kept = [key for key in cfg if key not in (*DIGEST_EXCLUDES, "hydra")]
    data = OmegaConf.to_container(OmegaConf.masked_copy(cfg, kept), resolve=True)
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:16]


def git_commit(repo: str | os.PathLike) -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, timeout=10, check=True
        )
        return out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def hardware() -> dict[str, Any]:
    import torch

    info = {"platform": platform.platform(), "cpu_count": os.cpu_count(), "torch": torch.__version__}
    info["device"] = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu"
    return info


def make_logger(cfg: DictConfig, run_dir: Path, sweep_group: str | None):
    if cfg.logger.name == "none":
        return NullLogger()
    if cfg.logger.name == "wandb":
        return WandbLogger(
            project=cfg.logger.project,
            run_dir=str(run_dir),
            config=OmegaConf.to_container(cfg, resolve=True),
            mode=cfg.logger.mode,
            group=sweep_group,
            name=f"{cfg.task_name}-{run_dir.name}",
            tags=list(cfg.logger.tags),
        )
    raise ValueError(f"logger.name={cfg.logger.name!r}: use 'wandb' or 'none'")


class RunContext:
    def __init__(self, cfg: DictConfig, run_dir: str | os.PathLike, sweep_group: str | None = None):
        self.cfg = cfg
        self.dir = Path(run_dir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.metrics_path = self.dir / "metrics.jsonl"
        self.summary_path = self.dir / "summary.json"
        self.final_metrics: dict[str, Any] = {}
        self._sweep_group = sweep_group
        self._logger = NullLogger()
        self._started = time.time()

    @property
    def eventlog_dir(self) -> Path:
        path = self.dir / "eventlogs"
        path.mkdir(exist_ok=True)
        return path

    @property
    def checkpoint_dir(self) -> Path:
        return self.dir / "checkpoints"

    def log(self, metrics: dict[str, float], step: int | None = None) -> None:
        """Append one JSON object to metrics.jsonl and mirror it to the tracker."""
        record = {"step": step, "time": round(time.time() - self._started, 3), **metrics}
        with self.metrics_path.open("a") as handle:
            handle.write(json.dumps(record, default=float) + "\n")
        self._logger.log(metrics, step=step)

    def set_summary(self, metrics: dict[str, Any]) -> None:
        """Record final metrics (merged into summary.json when the run ends)."""
        self.final_metrics.update(metrics)

    def write_summary(self, status: str, error: str | None = None) -> dict[str, Any]:
        summary = {
            "status": status,
            "task_name": self.cfg.task_name,
            "pipeline": self.cfg.pipeline,
            "metrics": self.final_metrics,
            "config_digest": config_digest(self.cfg),
            "git_commit": git_commit(self.cfg.paths.root),
            "wall_time_s": round(time.time() - self._started, 2),
            "hardware": hardware(),
            "error": error,
        }
        tmp = self.summary_path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(summary, indent=2, default=str))
        tmp.replace(self.summary_path)
        return summary

    def __enter__(self) -> RunContext:
        config_file = self.dir / ".hydra" / "config.yaml"
        if (
            not config_file.exists()
        ):  # a job composed in-process (tests, notebooks) gets what Hydra would write
            config_file.parent.mkdir(exist_ok=True)
            OmegaConf.save(
                OmegaConf.masked_copy(self.cfg, [k for k in self.cfg if k != "hydra"]), config_file
            )
        self._logger = make_logger(self.cfg, self.dir, self._sweep_group)
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        status = "completed" if exc is None else "failed"
        error = None if exc is None else "".join(traceback.format_exception(exc_type, exc, tb))
        try:
            self._logger.summary({**self.final_metrics, "status": status})
            self.write_summary(status, error)
        finally:
            self._logger.finish(status)
        return False
