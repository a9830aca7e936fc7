"""The run context: every artifact of a job under its Hydra output folder, and a summary written whatever happens.

``RunContext`` owns ``metrics.jsonl`` (one JSON object per logged step), ``summary.json`` (what ran: experiment,
sweep, pipeline, algorithm, model, benchmark; final metrics, with the final and best value of each trainer's main
metrics, :data:`TRAINER_METRICS`; config digest, git commit, wall time, hardware, status, error),
``task_scores.json`` (each evaluation phase's scores per task, what intervals over seeds and tasks are computed
from) and the tracker. ``summary.json`` is the source of truth for reports; wandb mirrors it. Used as a context
manager, a job that raises still writes ``"status": "failed"`` with the error, and the tracker is always finished.
It holds the run folder's lock (:mod:`agenttune.tracking.lock`) from entry to exit: a second run given the same
folder stops at once with :class:`~agenttune.tracking.lock.RunFolderBusy`.

Episodes written through :meth:`RunContext.episode_log` are counted: ``engine/generations`` and ``engine/failures``
(generations the engine could not produce, e.g. an unreachable endpoint) go to the summary, and a run whose
generations all failed ends ``"failed"`` with an error saying so, however the pipeline itself ended.

The tracker gets each phase's episodes as a table (:meth:`RunContext.log_episodes`) and, when the run ends, its
``eventlogs/`` as one artifact. A tracker that cannot start (:class:`~agenttune.tracking.loggers.TrackerError`)
leaves a ``"failed"`` summary.json naming the fix, not a half-written run folder.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import platform
import subprocess
import time
import traceback
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf

from agenttune.events.io import EventLogWriter
from agenttune.events.schema import EventKind, EventLog
from agenttune.tracking.lock import lock_run_folder
from agenttune.tracking.loggers import NullLogger, TrackerError, WandbLogger

# Keys that differ between runs of the same experiment without changing what it computes.
DIGEST_EXCLUDES = ("paths", "resume", "logger")
# A trainer's main metrics (logged as <stage>/<name>, e.g. train/loss) -> what their best value is; each gets
# <stage>/<name>/final and <stage>/<name>/best (KL: /max, the furthest the policy drifted from the reference).
TRAINER_METRICS = {
    "loss": ("best", min),
    "reward": ("best", max),
    "rewards/margins": ("best", max),
    "kl": ("max", max),
}


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
    info["processes"] = int(os.environ.get("WORLD_SIZE", "1"))  # a multi-process run (accelerate launch)
    info["device"] = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu"
    return info


def make_logger(cfg: DictConfig, run_dir: Path, sweep_group: str | None):
    if cfg.logger.name == "none":
        return NullLogger()
    if cfg.logger.name == "wandb":
        return WandbLogger(
            project=cfg.logger.project,
            run_dir=str(run_dir),
            config=OmegaConf.to_container(
                OmegaConf.masked_copy(cfg, [k for k in cfg if k != "hydra"]), resolve=True
            ),
            mode=cfg.logger.mode,
            group=sweep_group,
            name=f"{cfg.task_name}-{run_dir.name}",
            tags=list(cfg.logger.tags),
        )
    raise ValueError(f"logger.name={cfg.logger.name!r}: use 'wandb' or 'none'")


def run_identity(cfg: DictConfig) -> dict[str, Any]:
    """What the job ran: the experiment and sweep it was started with (None without), its pipeline, the algorithm it
    trains with (None for ``pipeline=evaluate``; the warm start's too when enabled), the model (and the checkpoint it
    started from) and the benchmark. A value the config leaves unset is None."""
    choices = HydraConfig.get().runtime.choices if HydraConfig.initialized() else {}
    value = lambda key: OmegaConf.select(cfg, key, default=None)  # noqa: E731
    identity = {
        "experiment": choices.get("experiment"),
        "sweep": choices.get("sweep"),
        "pipeline": value("pipeline"),
        "algorithm": None if value("pipeline") == "evaluate" else value("algorithm.name"),
        "model": value("model.name"),
        "init_from": value("init_from"),
        "benchmark": value("benchmark.name"),
    }
    if value("warm_start.enabled"):
        identity["warm_start"] = value("warm_start.algorithm.name")
    return identity


class EpisodeLog(EventLogWriter):
    """The writer of one phase's episodes: appends each log (see :class:`EventLogWriter`) and counts its
    generations and the engine's failures among them into the run (:meth:`RunContext.count_generations`)."""

    def __init__(self, path: str | os.PathLike, run: RunContext) -> None:
        super().__init__(path)
        self._run = run

    def write(self, log: EventLog) -> None:
        super().write(log)
        self._run.count_generations(log)


class RunContext:
    def __init__(self, cfg: DictConfig, run_dir: str | os.PathLike, sweep_group: str | None = None):
        self.cfg = cfg
        self.dir = Path(run_dir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.metrics_path = self.dir / "metrics.jsonl"
        self.summary_path = self.dir / "summary.json"
        self.final_metrics: dict[str, Any] = {}
        self.task_scores_path = self.dir / "task_scores.json"
        self._task_scores: dict[str, dict[str, dict[str, float]]] = {}
        self._sweep_group = sweep_group
        self._logger = NullLogger()
        self._started = time.time()
        self._first_engine_failure: str | None = None
        self.resume_plan = (
            None  # with resume=true, what the job continues from (agenttune.tracking.resume.ResumePlan)
        )

    @property
    def eventlog_dir(self) -> Path:
        path = self.dir / "eventlogs"
        path.mkdir(exist_ok=True)
        return path

    @property
    def checkpoint_dir(self) -> Path:
        return self.dir / "checkpoints"

    def episode_log(self, name: str) -> EpisodeLog:
        """A writer appending episodes to ``eventlogs/<name>.jsonl`` that counts them (:meth:`count_generations`)."""
        return EpisodeLog(self.eventlog_dir / f"{name}.jsonl", self)

    def count_generations(self, log: EventLog) -> None:
        """Add a finished episode's generations (``engine/generations``) and the engine's failures among them
        (``engine/failures``) to the summary; the first failure's message is kept for the error of a run whose
        generations all failed."""
        for key, field in (("engine/generations", "turns"), ("engine/failures", "engine_failures")):
            self.final_metrics[key] = self.final_metrics.get(key, 0) + int(log.metadata.get(field, 0))
        if self._first_engine_failure is None:
            self._first_engine_failure = next(
                (
                    e.payload.message
                    for e in log.events
                    if e.kind == EventKind.ERROR and e.payload.source == "engine"
                ),
                None,
            )

    def _every_generation_failed(self) -> str | None:
        """The error of a run whose engine produced no generation at all (None when it produced one)."""
        generations = self.final_metrics.get("engine/generations", 0)
        if generations == 0 or self.final_metrics.get("engine/failures", 0) < generations:
            return None
        first = self._first_engine_failure
        return f"all {generations} generations failed in the engine (engine/failures); the first: {first}"

    def log(self, metrics: dict[str, float], step: int | None = None) -> None:
        """Append one JSON object to metrics.jsonl and mirror it to the tracker."""
        record = {"step": step, "time": round(time.time() - self._started, 3), **metrics}
        with self.metrics_path.open("a") as handle:
            handle.write(json.dumps(record, default=float) + "\n")
        self._logger.log(metrics, step=step)
        self._track_trainer_metrics(metrics)

    def _track_trainer_metrics(self, metrics: dict[str, float]) -> None:
        """Keep ``<stage>/<name>/final`` and its best (or max) for every :data:`TRAINER_METRICS` name logged."""
        for key, value in metrics.items():
            stage, _, name = key.partition("/")
            if name not in TRAINER_METRICS or not isinstance(value, int | float) or not math.isfinite(value):
                continue
            label, better = TRAINER_METRICS[name]
            previous = self.final_metrics.get(f"{key}/{label}")
            self.final_metrics[f"{key}/final"] = value
            self.final_metrics[f"{key}/{label}"] = value if previous is None else better(previous, value)

    def log_episodes(
        self,
        key: str,
        logs: Sequence[EventLog],
        split: str,
        scores: Sequence[Mapping[str, float]] | None = None,
        step: int | None = None,
    ) -> None:
        """A phase's episodes to the tracker as one table under ``key`` (one row per episode, see
        :mod:`agenttune.tracking.episode_table`); ``step``: the training step a sample of rollouts belongs to."""
        self._logger.log_episodes(key, logs, split, scores, step)

    def set_summary(self, metrics: dict[str, Any]) -> None:
        """Record final metrics (merged into summary.json when the run ends)."""
        self.final_metrics.update(metrics)

    def set_task_scores(self, phase: str, scores: dict[str, dict[str, float]]) -> None:
        """Write ``phase``'s scores per task (task -> metric -> value) to task_scores.json, beside earlier phases."""
        self._task_scores[phase] = scores
        tmp = self.task_scores_path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(self._task_scores, indent=1))
        tmp.replace(self.task_scores_path)

    def write_summary(self, status: str, error: str | None = None) -> dict[str, Any]:
        summary = {
            "status": status,
            "task_name": self.cfg.task_name,
            **run_identity(self.cfg),
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
        self._lock = lock_run_folder(self.dir)  # before anything is written: a busy folder stays untouched
        config_file = self.dir / ".hydra" / "config.yaml"
        if (
            not config_file.exists()
        ):  # a job composed in-process (tests, notebooks) gets what Hydra would write
            config_file.parent.mkdir(exist_ok=True)
            OmegaConf.save(
                OmegaConf.masked_copy(self.cfg, [k for k in self.cfg if k != "hydra"]), config_file
            )
        try:
            self._logger = make_logger(self.cfg, self.dir, self._sweep_group)
        except TrackerError as error:  # the run ends here: its folder says why
            self.write_summary("failed", str(error))
            self._lock.release()
            raise
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        status = "completed" if exc is None else "failed"
        error = None if exc is None else "".join(traceback.format_exception(exc_type, exc, tb))
        if exc is None and (engine_error := self._every_generation_failed()):
            status, error = "failed", engine_error
        try:
            try:  # summary.json is written even when the tracker fails
                self._logger.log_eventlogs(self.dir / "eventlogs")
                self._logger.summary({**run_identity(self.cfg), **self.final_metrics, "status": status})
            finally:
                self.write_summary(status, error)
        finally:
            try:
                self._logger.finish(status)
            finally:
                self._lock.release()
        return False
