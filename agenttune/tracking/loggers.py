"""Experiment trackers with one interface: ``log(metrics, step)``, ``summary(metrics)`` and ``finish(status)``.

``NullLogger`` has the real logger's interface and does nothing (``logger=none``); ``WandbLogger`` mirrors the
run folder's metrics and summary to wandb, offline unless ``WANDB_MODE`` says otherwise, grouped by sweep folder
in a multirun.
"""

from __future__ import annotations

import os
from typing import Any


class NullLogger:
    def log(self, metrics: dict[str, float], step: int | None = None) -> None:
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

        self._run = wandb.init(
            project=project,
            dir=run_dir,
            config=config,
            mode=os.environ.get("WANDB_MODE", mode),
            group=group,
            name=name,
            tags=tags or None,
            reinit="finish_previous",
        )

    def log(self, metrics: dict[str, float], step: int | None = None) -> None:
        self._run.log(metrics, step=step)

    def summary(self, metrics: dict[str, Any]) -> None:
        self._run.summary.update(metrics)

    def finish(self, status: str) -> None:
        self._run.finish(exit_code=0 if status == "completed" else 1)
