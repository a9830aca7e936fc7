"""A W&B Report for a sweep (``python scripts/report.py <multirun folder> --wandb``), built with wandb-workspaces
from the same collected rows as report.md/html (:func:`agenttune.tracking.report.collect`).

The report's runs are the sweep's: its jobs logged to wandb under one group, the sweep folder
(:func:`agenttune.pipelines.sweep_group`), and the report's run set filters on it. Panels: each swept numeric
value against each evaluation metric that varies (a scatter plot per pair), a parallel-coordinates panel over the
swept values and those metrics, the train reward and loss curves, and each evaluation phase's per-episode table
(``<phase>/trajectories``, :mod:`agenttune.tracking.episode_table`). Online (``WANDB_MODE=online``) it is saved and
its URL returned; offline (the default, like the runs) its spec is written to ``<sweep>/wandb_report.json`` with
how to publish it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

from agenttune.tracking.jobs import JobRow, config_values
from agenttune.tracking.report import numeric_swept_keys

WORKSPACES_EXTRA = "pip install -e '.[reports]'"
SPEC_FILE = "wandb_report.json"
TRAIN_CURVES = {"train reward": "train/reward", "train loss": "train/loss"}


class WandbReportError(RuntimeError):
    """The W&B report cannot be built: wandb-workspaces is missing, or there is nothing to report."""


def workspaces():
    """``wandb_workspaces.reports.v2``, or a one-line :class:`WandbReportError` naming the extra to install."""
    try:
        import wandb_workspaces.reports.v2 as reports
    except ImportError:
        raise WandbReportError(
            f"--wandb needs wandb-workspaces, which is not installed: {WORKSPACES_EXTRA} "
            "(or leave --wandb out for report.md and report.html alone)"
        ) from None
    return reports


def sweep_group(sweep_dir: Path) -> str:
    """The wandb group the sweep's jobs logged under: Hydra's ``hydra.sweep.dir`` as a job saw it (the folder's
    absolute path when no job recorded it)."""
    for hydra_file in sorted(sweep_dir.glob("*/.hydra/hydra.yaml")):
        swept = (yaml.safe_load(hydra_file.read_text()) or {}).get("hydra", {}).get("sweep", {}).get("dir")
        if isinstance(swept, str) and "${" not in swept:
            return swept
    return str(sweep_dir.resolve())


def trajectory_tables(rows: list[JobRow]) -> list[str]:
    """The per-episode tables of the sweep's evaluation phases (a phase has ``<phase>/episodes`` in summaries)."""
    phases = {name.rsplit("/", 1)[0] for row in rows for name in row.metrics if name.endswith("/episodes")}
    return [f"{phase}/trajectories" for phase in sorted(phases) if phase.startswith("eval")]


def build_report(sweep_dir: Path, rows: list[JobRow], metrics: list[str], entity: str | None = None):
    """The report (a ``wandb_workspaces.reports.v2.Report``) for the sweep's ``rows`` and their varying ``metrics``."""
    wr = workspaces()
    if not rows:
        raise WandbReportError(f"no job of {sweep_dir} has a summary.json: nothing to report")
    project = config_values(sweep_dir / rows[0].job, ["logger.project"]).get("logger.project", "agenttune")
    entity = entity if entity is not None else os.environ.get("WANDB_ENTITY", "")
    group = sweep_group(sweep_dir)
    keys = numeric_swept_keys(rows)
    evaluated = [m for m in metrics if m.startswith("eval") or m.startswith("delta/")] or metrics
    panels: list[Any] = [
        wr.ScatterPlot(title=f"{metric} against {key}", x=wr.Config(key), y=wr.SummaryMetric(metric))
        for key in keys
        for metric in evaluated
    ]
    columns = [wr.ParallelCoordinatesPlotColumn(metric=wr.Config(key)) for key in keys]
    columns += [wr.ParallelCoordinatesPlotColumn(metric=wr.SummaryMetric(m)) for m in evaluated]
    if columns:
        panels.append(
            wr.ParallelCoordinatesPlot(title="swept values and evaluation metrics", columns=columns)
        )
    panels += [wr.LinePlot(title=title, x="train/step", y=[metric]) for title, metric in TRAIN_CURVES.items()]
    panels += [wr.WeavePanelSummaryTable(table_name=table) for table in trajectory_tables(rows)]
    runset = wr.Runset(entity=entity, project=project, name=sweep_dir.name, filters=f"Group = '{group}'")
    swept = ", ".join(keys) or "no numeric value"
    return wr.Report(
        project=project,
        entity=entity,
        title=f"Sweep {sweep_dir.name}"[:128],
        description=f"{len(rows)} jobs of {sweep_dir} (wandb group {group}); swept: {swept}",
        blocks=[wr.PanelGrid(runsets=[runset], panels=panels)],
        width="fluid",
    )


def publish(sweep_dir: Path, rows: list[JobRow], metrics: list[str]) -> str:
    """Save the report online and return its URL, or, offline, write its spec beside the sweep and return how to
    publish it."""
    report = build_report(sweep_dir, rows, metrics)
    if os.environ.get("WANDB_MODE", "offline") == "online":
        report.save()
        return f"W&B report: {report.url}"
    spec_path = sweep_dir / SPEC_FILE
    spec_path.write_text(report._to_model().model_dump_json(by_alias=True, exclude_none=True, indent=1))
    return (
        f"wrote the W&B report's spec to {spec_path} (offline); to publish it, sync the runs "
        f"(`wandb sync {sweep_dir}/*/wandb/offline-run-*`) and run "
        f"`WANDB_MODE=online python scripts/report.py {sweep_dir} --wandb`"
    )
