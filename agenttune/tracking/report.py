"""A local comparison report for a multirun folder, built from each job's own files (no server).

Every job folder of a Hydra sweep holds ``.hydra/overrides.yaml`` and ``summary.json``; the report has one row per
job with its overrides, status and summary metrics, and one plot per (swept numeric value, metric) pair.
Written as ``report.md`` and ``report.html`` (plots as PNG files beside them) in the sweep folder.

A tau2 self-evolution sweep (jobs whose summary has ``selected_checkpoint``) gets the paper's table: beta, lr
and steps read from each job's ``.hydra/config.yaml`` (whatever was swept: plain values or a ``dpo_config``
schedule), the ToolGraph + DPO reward per domain, the sign of the selected checkpoint's chosen reward, the
selected configuration (best end-to-end selection reward, then best chosen reward) marked with ``*``, and
``overlaps_baseline``: ``yes`` where the ToolGraph + DPO reward's 95% interval overlaps the baseline's (no evidence
that the configuration changed anything), ``no`` where they are apart.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml


@dataclass
class JobRow:
    job: str
    overrides: dict[str, str]
    status: str
    metrics: dict[str, Any] = field(default_factory=dict)
    config: dict[str, str] = field(default_factory=dict)  # TAU2_PARAMS values from .hydra/config.yaml


# tau2 sweep table columns: name -> config key
TAU2_PARAMS = {"beta": "algorithm.beta", "lr": "algorithm.learning_rate", "steps": "algorithm.max_steps"}


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


def is_tau2(rows: list[JobRow]) -> bool:
    return any("selected_checkpoint" in row.metrics for row in rows)


def tau2_metrics(rows: list[JobRow]) -> list[str]:
    """ToolGraph + DPO reward per domain and overall, then the selection values."""
    names = sorted({n for row in rows for n in row.metrics if n.startswith("eval/toolgraph_dpo/")})
    rewards = [n for n in names if n.endswith("/avg_reward")]
    return [*rewards, "eval/baseline/avg_reward", "select_e2e_reward", "select_chosen_reward"]


def selected_job(rows: list[JobRow]) -> str | None:
    """The job with the best end-to-end selection reward (ties: best chosen reward)."""
    done = [row for row in rows if row.status == "completed" and "select_e2e_reward" in row.metrics]
    if not done:
        return None
    best = max(
        done, key=lambda r: (r.metrics["select_e2e_reward"], r.metrics.get("select_chosen_reward", 0.0))
    )
    return best.job


def overlaps_baseline(
    metrics: dict[str, Any], variant: str = "toolgraph_dpo", metric: str = "avg_reward"
) -> str:
    """``yes`` when ``eval/<variant>/<metric>``'s 95% interval overlaps ``eval/baseline/<metric>``'s, ``no`` when they
    are apart, empty when either has no interval."""
    ends = [
        metrics.get(f"eval/{name}/{metric}/ci_{end}")
        for name in (variant, "baseline")
        for end in ("low", "high")
    ]
    if None in ends:
        return ""
    low, high, base_low, base_high = ends
    return "yes" if low <= base_high and base_low <= high else "no"


def parse_overrides(lines: list[str]) -> dict[str, str]:
    """``['algorithm.learning_rate=1e-5', '+experiment=smoke']`` -> ``{'algorithm.learning_rate': '1e-5', ...}``."""
    pairs = (line.lstrip("+~").split("=", 1) for line in lines)
    return {key: value for key, value in (p for p in pairs if len(p) == 2)}


def load_jobs(sweep_dir: str | Path) -> list[JobRow]:
    """One row per job folder that has a summary.json, ordered by job number."""
    rows = []
    folders = [p for p in Path(sweep_dir).iterdir() if (p / "summary.json").exists()]
    for folder in sorted(
        folders, key=lambda p: (not p.name.isdigit(), int(p.name) if p.name.isdigit() else 0, p.name)
    ):
        summary = json.loads((folder / "summary.json").read_text())
        overrides_file = folder / ".hydra" / "overrides.yaml"
        overrides = (
            parse_overrides(yaml.safe_load(overrides_file.read_text()) or [])
            if overrides_file.exists()
            else {}
        )
        config = config_values(folder, list(TAU2_PARAMS.values()))
        rows.append(
            JobRow(folder.name, overrides, summary.get("status", "?"), summary.get("metrics", {}), config)
        )
    if not rows:
        raise FileNotFoundError(f"No job folder with a summary.json under {sweep_dir}")
    return rows


def swept_keys(rows: list[JobRow]) -> list[str]:
    """Override keys whose value differs between jobs."""
    keys = sorted({key for row in rows for key in row.overrides})
    return [key for key in keys if len({row.overrides.get(key) for row in rows}) > 1]


def numeric_metrics(rows: list[JobRow]) -> list[str]:
    names = sorted(
        {name for row in rows for name, value in row.metrics.items() if isinstance(value, int | float)}
    )
    return [name for name in names if not isinstance(rows[0].metrics.get(name), bool)]


def _as_float(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def make_plots(
    rows: list[JobRow], out_dir: Path, max_plots: int = 12, metrics: list[str] | None = None
) -> list[Path]:
    """One PNG per (swept numeric key, metric); jobs with a missing value are left out of that plot."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = []
    for key in swept_keys(rows):
        for metric in metrics or numeric_metrics(rows):
            points = sorted(
                (x, row.metrics[metric])
                for row in rows
                if (x := _as_float(row.overrides.get(key))) is not None and metric in row.metrics
            )
            if len(points) < 2 or len(paths) >= max_plots:
                continue
            fig, axis = plt.subplots(figsize=(4.5, 3.2))
            axis.plot([p[0] for p in points], [p[1] for p in points], marker="o")
            axis.set_xlabel(key)
            axis.set_ylabel(metric)
            if all(p[0] > 0 for p in points) and max(p[0] for p in points) / min(p[0] for p in points) >= 10:
                axis.set_xscale("log")
            fig.tight_layout()
            path = out_dir / f"plot_{key}_{metric}.png".replace("/", "_")
            fig.savefig(path, dpi=100)
            plt.close(fig)
            paths.append(path)
    return paths


def _format(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def table(rows: list[JobRow], metrics: list[str]) -> tuple[list[str], list[list[str]]]:
    keys = swept_keys(rows) or sorted({k for row in rows for k in row.overrides})
    header = ["job", *keys, "status", *metrics]
    body = [
        [
            row.job,
            *(row.overrides.get(k, "") for k in keys),
            row.status,
            *(_format(row.metrics.get(m, "")) for m in metrics),
        ]
        for row in rows
    ]
    if is_tau2(rows):
        selected = selected_job(rows)
        header[1:1] = [*TAU2_PARAMS, "chosen_reward_sign", "selected", "overlaps_baseline"]
        for row, cells in zip(rows, body, strict=True):
            chosen = row.metrics.get("select_chosen_reward")
            sign = "" if chosen is None else "+" if chosen > 0 else "-"
            params = [row.config.get(key, "") for key in TAU2_PARAMS.values()]
            cells[1:1] = [*params, sign, "*" if row.job == selected else "", overlaps_baseline(row.metrics)]
    return header, body


def write_report(sweep_dir: str | Path, metrics: list[str] | None = None) -> tuple[Path, Path]:
    """Write report.md and report.html (with plots) into ``sweep_dir``; returns their paths."""
    sweep_dir = Path(sweep_dir)
    rows = load_jobs(sweep_dir)
    metrics = metrics or (tau2_metrics(rows) if is_tau2(rows) else numeric_metrics(rows))
    header, body = table(rows, metrics)
    plots = make_plots(rows, sweep_dir, metrics=metrics)

    md_lines = [
        f"# Report: {sweep_dir.name}",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
    ]
    md_lines += ["| " + " | ".join(cells) + " |" for cells in body]
    md_lines += ["", *(f"![{p.stem}]({p.name})" for p in plots), ""]
    md_path = sweep_dir / "report.md"
    md_path.write_text("\n".join(md_lines))

    cells = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    trs = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in body)
    images = "".join(f'<img src="{html.escape(p.name)}" alt="{html.escape(p.stem)}">' for p in plots)
    html_path = sweep_dir / "report.html"
    html_path.write_text(
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(sweep_dir.name)}</title>"
        "<style>table{border-collapse:collapse}td,th{border:1px solid #999;padding:3px 6px}</style></head>"
        f"<body><h1>Report: {html.escape(sweep_dir.name)}</h1><table><tr>{cells}</tr>{trs}</table>{images}</body></html>"
    )
    return md_path, html_path
