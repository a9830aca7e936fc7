"""A sweep's job folders read into rows, one :class:`JobRow` per job (:func:`load_jobs`).

Every job folder of a Hydra sweep holds ``.hydra/overrides.yaml`` and ``summary.json`` (and ``metrics.jsonl``,
``task_scores.json``); a row keeps the job's overrides, status, summary metrics, the last value of each metric in
``metrics.jsonl``, its per-task scores and the :data:`TAU2_PARAMS` of its composed config. The report
(:mod:`agenttune.tracking.report`), the seed groups (:mod:`agenttune.tracking.seeds`) and the wandb report read
these rows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from agenttune.progress import progress


@dataclass
class JobRow:
    job: str
    overrides: dict[str, str]
    status: str
    metrics: dict[str, Any] = field(default_factory=dict)
    config: dict[str, str] = field(default_factory=dict)  # CONFIG_KEYS values from .hydra/config.yaml
    logged: dict[str, float] = field(default_factory=dict)  # the last value of each metric in metrics.jsonl
    task_scores: dict[str, Any] = field(
        default_factory=dict
    )  # task_scores.json: phase -> task -> metric -> value

    def value(self, metric: str) -> Any:
        """``metric`` from summary.json, else its last value in metrics.jsonl (None when neither has it)."""
        return self.metrics.get(metric, self.logged.get(metric))


# tau2 sweep table columns: name -> config key
TAU2_PARAMS = {"beta": "algorithm.beta", "lr": "algorithm.learning_rate", "steps": "algorithm.max_steps"}
# what a row keeps of its composed config: the tau2 columns, and the seed (a job run at the default seed has no
# seed override, yet belongs with the seeds swept beside it)
CONFIG_KEYS = [*TAU2_PARAMS.values(), "seed"]


def config_values(folder: Path, keys: list[str]) -> dict[str, str]:
    """Dotted ``keys`` of a job's composed config (``.hydra/config.yaml``); missing ones are left out."""
    path = folder / ".hydra" / "config.yaml"
    data = yaml.safe_load(path.read_text()) if path.exists() else {}
    values = {}
    for key in keys:
        node: Any = data
        for part in key.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        if node is not None:
            values[key] = str(node)
    return values


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def parse_overrides(lines: list[str]) -> dict[str, str]:
    """``['algorithm.learning_rate=1e-5', '+experiment=smoke']`` -> ``{'algorithm.learning_rate': '1e-5', ...}``."""
    pairs = (line.lstrip("+~").split("=", 1) for line in lines)
    return {key: value for key, value in (p for p in pairs if len(p) == 2)}


def metric_records(path: Path) -> list[dict[str, Any]]:
    """The records of a metrics.jsonl, in order ([] when there is none); a last line cut short by a killed run is
    skipped, any other unreadable line is an error naming it."""
    lines = path.read_text().splitlines() if path.exists() else []
    records = []
    for number, line in enumerate(lines, 1):
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            if number == len(lines):
                break
            raise ValueError(f"{path}, line {number}: not a JSON object") from None
    return records


def last_logged(path: Path) -> dict[str, float]:
    """The last value of every numeric metric in a metrics.jsonl ({} when there is none)."""
    values: dict[str, float] = {}
    for record in metric_records(path):
        values |= {
            key: value for key, value in record.items() if key not in ("step", "time") and is_number(value)
        }
    return values


def load_jobs(sweep_dir: str | Path) -> list[JobRow]:
    """One row per job folder that has a summary.json, ordered by job number (a ``resume=true`` job that found its
    config already completed in a sibling folder adds none)."""
    rows = []
    folders = [p for p in Path(sweep_dir).iterdir() if (p / "summary.json").exists()]
    ordered = sorted(
        folders, key=lambda p: (not p.name.isdigit(), int(p.name) if p.name.isdigit() else 0, p.name)
    )
    for folder in progress(ordered, desc="report: jobs", unit="job"):
        summary = json.loads((folder / "summary.json").read_text())
        if "resume/completed_run" in summary.get("metrics", {}):  # resume=true found the job done: no row
            continue
        overrides_file = folder / ".hydra" / "overrides.yaml"
        overrides = (
            parse_overrides(yaml.safe_load(overrides_file.read_text()) or [])
            if overrides_file.exists()
            else {}
        )
        config = config_values(folder, CONFIG_KEYS)
        scores_file = folder / "task_scores.json"
        task_scores = json.loads(scores_file.read_text()) if scores_file.exists() else {}
        rows.append(
            JobRow(
                folder.name,
                overrides,
                summary.get("status", "?"),
                summary.get("metrics", {}),
                config,
                last_logged(folder / "metrics.jsonl"),
                task_scores,
            )
        )
    if not rows:
        raise FileNotFoundError(f"No job folder with a summary.json under {sweep_dir}")
    return rows
