"""Experiment trackers with one interface: ``log(metrics, step)``, ``log_episodes(key, logs, split, ...)``,
``log_eventlogs(folder)``, ``summary(metrics)`` and ``finish(status)``.

``NullLogger`` has the real logger's interface and does nothing, at no cost: no row is built, no file read
(``logger=none``). ``WandbLogger`` mirrors the run folder to wandb, offline unless ``WANDB_MODE`` says otherwise
(everything then lands in the run's ``wandb/`` folder), grouped by sweep folder in a multirun: metrics and summary,
each phase's episodes as a ``wandb.Table`` (one row per episode, :mod:`agenttune.tracking.episode_table`) and the
run's ``eventlogs/`` as one Artifact of type ``eventlog`` with its episode and event counts in the metadata.

A trainer's metrics come with the trainer's step, and every training stage of a run (the warm start's SFT, then
GRPO) starts again at step 1, while wandb drops a row logged to a step below its own counter. So ``WandbLogger``
logs each stage against a step of its own, ``<stage>/step`` (``train/step``, ``distill/step``), declared with
``define_metric`` as wandb documents for data logged out of order, and leaves wandb's ``_step`` to count rows.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from agenttune.events.schema import EventLog


class TrackerError(RuntimeError):
    """The tracker could not start (e.g. wandb online without credentials): the message names the option and fix."""


class NullLogger:
    def log(self, metrics: dict[str, float], step: int | None = None) -> None:
        pass

    def log_episodes(
        self,
        key: str,
        logs: Sequence[EventLog],
        split: str,
        scores: Sequence[Mapping[str, float]] | None = None,
        step: int | None = None,
    ) -> None:
        pass

    def log_eventlogs(self, folder: Path) -> None:
        pass

    def summary(self, metrics: dict[str, Any]) -> None:
        pass

    def finish(self, status: str) -> None:
        pass


class WandbLogger(NullLogger):
    def __init__(
        self,
        project: str,
        run_dir: str,
        config: dict[str, Any],
        mode: str = "offline",
        group: str | None = None,
        name: str | None = None,
        tags: list[str] | None = None,
    ):
        import wandb

        mode = os.environ.get("WANDB_MODE", mode)
        self._stages: set[str] = set()  # the stages whose <stage>/step is declared
        try:
            self._run = wandb.init(
                project=project,
                dir=run_dir,
                config=config,
                mode=mode,
                group=group,
                name=name,
                tags=tags or None,
                reinit="finish_previous",
            )
        except Exception as error:  # wandb raises its own types (UsageError, CommError, ...)
            first_line = (str(error).strip().splitlines() or [type(error).__name__])[0]
            raise TrackerError(
                f"logger=wandb could not start a wandb run in mode {mode!r} ({first_line}): run `wandb login`, "
                "or set WANDB_MODE=offline (sync later with `wandb sync`), or pass logger=none"
            ) from error

    def log(self, metrics: dict[str, float], step: int | None = None) -> None:
        self._run.log({**metrics, **self._stage_steps(metrics, step)})

    def _stage_steps(self, keys: Iterable[str], step: int | None) -> dict[str, int]:
        """``{"<stage>/step": step}`` for the stage (the part before the first ``/``) of each of ``keys``, each
        stage's step declared as the x-axis of its metrics the first time; nothing without a step."""
        if step is None:
            return {}
        stages = {key.partition("/")[0] for key in keys}
        for stage in stages - self._stages:
            self._run.define_metric(f"{stage}/step")
            self._run.define_metric(f"{stage}/*", step_metric=f"{stage}/step")
            self._stages.add(stage)
        return {f"{stage}/step": step for stage in stages}

    def log_episodes(
        self,
        key: str,
        logs: Sequence[EventLog],
        split: str,
        scores: Sequence[Mapping[str, float]] | None = None,
        step: int | None = None,
    ) -> None:
        """``logs`` as a ``wandb.Table`` under ``key``, one row per episode (``scores``: the benchmark's per
        episode), at ``step`` of its stage when given (the trainer step a rollout batch's update is logged at)."""
        import wandb

        from agenttune.tracking.episode_table import episode_rows

        columns, rows = episode_rows(logs, split, scores)
        table = wandb.Table(columns=columns, data=rows)
        self._run.log({key: table, **self._stage_steps([key], step)})

    def log_eventlogs(self, folder: Path) -> None:
        """The run's EventLogs (every ``*.jsonl`` under ``folder``) as one Artifact of type ``eventlog``, with the
        number of episodes and events in its metadata (in total and per file); nothing when there are none. The
        files are referenced where they are (they are append-only and finished by now), not copied."""
        import wandb

        from agenttune.events.io import read_jsonl

        paths = sorted(folder.rglob("*.jsonl")) if folder.is_dir() else []
        if not paths:
            return
        files = {}
        for path in paths:
            logs = read_jsonl(path, strict=False).logs
            files[path.relative_to(folder).as_posix()] = {
                "episodes": len(logs),
                "events": sum(len(log.events) for log in logs),
            }
        metadata = {
            "episodes": sum(counts["episodes"] for counts in files.values()),
            "events": sum(counts["events"] for counts in files.values()),
            "files": files,
        }
        artifact = wandb.Artifact(f"eventlogs-{self._run.id}", type="eventlog", metadata=metadata)
        artifact.add_dir(str(folder), policy="immutable")
        self._run.log_artifact(artifact)

    def summary(self, metrics: dict[str, Any]) -> None:
        self._run.summary.update(metrics)

    def finish(self, status: str) -> None:
        self._run.finish(exit_code=0 if status == "completed" else 1)
