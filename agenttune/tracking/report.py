"""A local comparison report for a multirun folder, built from each job's own files (no server).

Every job folder of a Hydra sweep holds ``.hydra/overrides.yaml`` and ``summary.json`` (and ``metrics.jsonl``,
``task_scores.json``). The report has one row per job, named by the overrides that set it apart from the other
jobs; overrides every job shares, and metric columns with the same value in every row, are listed once under the
table. A metric with a 95% interval shows it in its cell: ``0.5 [0.3, 0.7] n=8``. Jobs that differ only by
``seed`` (``+sweep=seeds``) are also grouped into one row each (:mod:`agenttune.tracking.seeds`: the mean over
seeds, an interval over seeds and tasks), above the per-job table. Requested metrics are looked up in
``summary.json`` and then as their last value in ``metrics.jsonl``; one that no job has is named in the report
(with close names). Plots: each metric against each swept numeric value, and each metric with an interval across
the rows, intervals drawn as error bars. Written as ``report.md`` and ``report.html`` (plots as PNG files beside
them) in the sweep folder, and the same numbers as ``report.json`` (:func:`interval_records`: each job's, and each
seed group's under ``over_seeds``), the file a page's linked values point to.

A tau2 self-evolution sweep (jobs whose summary has ``selected_checkpoint``) gets the paper's table: beta, lr
and steps read from each job's ``.hydra/config.yaml`` (whatever was swept: plain values or a ``dpo_config``
schedule), the ToolGraph + DPO reward per domain, the sign of the selected checkpoint's chosen reward, the
selected configuration (best end-to-end selection reward, then best chosen reward) marked with ``*``, and
``overlaps_baseline``: ``yes`` where the ToolGraph + DPO reward's 95% interval overlaps the baseline's (no evidence
that the configuration changed anything), ``no`` where they are apart.
"""

from __future__ import annotations

import difflib
import html
import json
import logging
from collections.abc import Collection
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agenttune.tracking.jobs import TAU2_PARAMS, JobRow, is_number, load_jobs
from agenttune.tracking.seeds import SEED_KEY, has_seed_groups, merge_seeds, seed_groups, task_matrix

log = logging.getLogger(__name__)


# The companions of a metric with an interval, shown in its cell rather than as columns of their own.
INTERVAL_PARTS = ("/n", "/ci_low", "/ci_high", "/seeds")


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


def swept_keys(rows: list[JobRow]) -> list[str]:
    """Override keys whose value differs between jobs."""
    keys = sorted({key for row in rows for key in row.overrides})
    return [key for key in keys if len({row.overrides.get(key) for row in rows}) > 1]


def shared_overrides(rows: list[JobRow]) -> dict[str, str]:
    """Overrides every row has with the same value."""
    first = rows[0].overrides
    return {
        key: value for key, value in first.items() if all(row.overrides.get(key) == value for row in rows)
    }


def numeric_swept_keys(rows: list[JobRow]) -> list[str]:
    """Swept override keys whose value is a number in every job (what plots and the W&B report put on an axis)."""
    return [
        key for key in swept_keys(rows) if all(_as_float(row.overrides.get(key)) is not None for row in rows)
    ]


def interval_records(values: dict[str, Any], metrics: list[str]) -> dict[str, dict[str, Any]]:
    """Each of ``metrics`` in ``values`` (a job's or a merged row's metrics) as a record of its value and the
    companions it has: ``{"value", "ci_low", "ci_high", "n", "seeds"}``."""
    records = {}
    for metric in metrics:
        if is_number(values.get(metric)):
            parts = ("ci_low", "ci_high", "n", "seeds")
            records[metric] = {
                "value": values[metric],
                **{part: values[f"{metric}/{part}"] for part in parts if f"{metric}/{part}" in values},
            }
    return records


def job_name(row: JobRow, keys: list[str]) -> str:
    """The job named by its values of the override ``keys`` (those that differ between jobs)."""
    return ", ".join(f"{key}={row.overrides[key]}" for key in keys if key in row.overrides)


def group_name(merged: JobRow, groups: list[JobRow]) -> str:
    """A seed group named by the overrides that set it apart from the other groups, then its seeds."""
    keys = [key for key in swept_keys(groups) if key != SEED_KEY]
    return job_name(merged, [*keys, SEED_KEY])


def numeric_metrics(rows: list[JobRow]) -> list[str]:
    """Every numeric summary metric, without the interval companions (``/n``, ``/ci_low``, ...) of another."""
    names = {name for row in rows for name, value in row.metrics.items() if is_number(value)}
    return sorted(name for name in names if not any(name.endswith(part) for part in INTERVAL_PARTS))


def find_metrics(rows: list[JobRow], requested: list[str]) -> tuple[list[str], list[str]]:
    """(requested metrics some job has in summary.json or metrics.jsonl, or per task in task_scores.json, which the
    rows over seeds resample; notes naming each that no job has)."""
    found = [
        name
        for name in requested
        if any(row.value(name) is not None or task_matrix([row], name) is not None for row in rows)
    ]
    known = sorted({name for row in rows for name in (*row.metrics, *row.logged)})
    notes = []
    for name in requested:
        if name not in found:
            close = difflib.get_close_matches(name, known, n=3)
            hint = f" (close: {', '.join(close)})" if close else ""
            notes.append(f"{name}: in no job's summary.json, metrics.jsonl or task_scores.json{hint}")
    return found, notes


def _as_float(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _interval(row: JobRow, metric: str) -> tuple[float, float] | None:
    low, high = row.metrics.get(f"{metric}/ci_low"), row.metrics.get(f"{metric}/ci_high")
    return (low, high) if is_number(low) and is_number(high) else None


def _error_bars(rows: list[JobRow], metric: str) -> list[list[float]]:
    """Matplotlib's asymmetric yerr for ``rows``' values of ``metric`` (0 where a row has no interval). A bar is
    never negative: a mean over seeds of a constant may sit above its interval by a rounding error
    (0.20000000000000004 against [0.2, 0.2])."""
    below, above = [], []
    for row in rows:
        value, bounds = row.value(metric), _interval(row, metric)
        below.append(max(0.0, value - bounds[0]) if bounds else 0.0)
        above.append(max(0.0, bounds[1] - value) if bounds else 0.0)
    return [below, above]


def _series(
    rows: list[JobRow], key: str, others: list[str], metric: str
) -> dict[str, list[tuple[float, JobRow]]]:
    """The points (value of ``key``, row) of each line of a plot against ``key``: one line per combination of the
    ``others`` swept keys' values (labelled ``other=value, ...``), each sorted by ``key``; rows without ``metric``
    left out."""
    series: dict[str, list[tuple[float, JobRow]]] = {}
    for row in rows:
        if is_number(row.value(metric)):
            label = ", ".join(f"{other}={row.overrides.get(other, '')}" for other in others)
            series.setdefault(label, []).append((_as_float(row.overrides[key]), row))
    return {label: sorted(points, key=lambda point: point[0]) for label, points in sorted(series.items())}


def make_plots(
    rows: list[JobRow],
    out_dir: Path,
    max_plots: int = 12,
    metrics: list[str] | None = None,
    prefix: str = "plot",
) -> list[Path]:
    """One PNG per (swept numeric key, metric), and one per metric with an interval across the rows when no key is
    swept; intervals as error bars, jobs with a missing value left out of that plot."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths: list[Path] = []

    def save(fig, name: str) -> None:
        fig.tight_layout()
        path = out_dir / f"{prefix}_{name}.png".replace("/", "_")
        fig.savefig(path, dpi=100)
        plt.close(fig)
        paths.append(path)

    keys = numeric_swept_keys(rows)
    for key in keys:
        others = [other for other in swept_keys(rows) if other != key]
        for metric in metrics or numeric_metrics(rows):
            series = _series(rows, key, others, metric)
            if max((len(points) for points in series.values()), default=0) < 2 or len(paths) >= max_plots:
                continue
            fig, axis = plt.subplots(figsize=(5.2, 3.4))
            for label, points in series.items():
                xs, ordered = [x for x, _ in points], [row for _, row in points]
                values = [row.value(metric) for row in ordered]
                yerr = _error_bars(ordered, metric)
                axis.errorbar(xs, values, yerr=yerr, marker="o", capsize=3, label=label or None)
            xs = [x for points in series.values() for x, _ in points]
            axis.set_xlabel(key)
            axis.set_ylabel(metric)
            axis.set_title(f"{metric} against {key}", fontsize=9)
            if others:
                axis.legend(title=", ".join(others), fontsize=7, title_fontsize=7)
            if all(x > 0 for x in xs) and max(xs) / min(xs) >= 10:
                axis.set_xscale("log")
            save(fig, f"{key}_{metric}")
    if keys:
        return paths
    # Rows that differ by nothing swept (one row, or seeds merged into one) are named by their seeds, not by their
    # joined job folders, which no plot has room for.
    names = [job_name(row, swept_keys(rows) or [SEED_KEY]) or row.job for row in rows]
    for metric in metrics or numeric_metrics(rows):
        shown = [(name, row) for name, row in zip(names, rows, strict=True) if _interval(row, metric)]
        if not shown or len(paths) >= max_plots:
            continue
        fig, axis = plt.subplots(figsize=(5.5, 0.6 + 0.4 * len(shown)))
        values = [row.value(metric) for _, row in shown]
        axis.errorbar(
            values, range(len(shown)), xerr=_error_bars([r for _, r in shown], metric), fmt="o", capsize=3
        )
        axis.set_yticks(range(len(shown)), [name for name, _ in shown])
        axis.set_xlabel(f"{metric} (95% interval)")
        save(fig, metric)
    return paths


def _format(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def cell(row: JobRow, metric: str) -> str:
    """``metric``'s value, with its interval, tasks and seeds when it has them: ``0.5 [0.3, 0.7] n=8, 3 seeds``."""
    value = row.value(metric)
    if value is None:
        return ""
    text = _format(value)
    bounds = _interval(row, metric)
    if bounds and bounds != (value, value):
        text += f" [{_format(bounds[0])}, {_format(bounds[1])}]"
    counts = [f"n={row.metrics[f'{metric}/n']}"] if f"{metric}/n" in row.metrics else []
    counts += [f"{row.metrics[f'{metric}/seeds']} seeds"] if f"{metric}/seeds" in row.metrics else []
    return f"{text} {', '.join(counts)}" if counts else text


def constant_metrics(rows: list[JobRow], metrics: list[str]) -> dict[str, str]:
    """Metrics whose cell is the same in every row (of two or more), each with that cell."""
    if len(rows) < 2:
        return {}
    cells = {metric: {cell(row, metric) for row in rows} for metric in metrics}
    return {metric: next(iter(values)) for metric, values in cells.items() if len(values) == 1}


def varying_metrics(rows: list[JobRow], metrics: list[str]) -> list[str]:
    """``metrics`` that differ between rows (those plotted; the constant ones are listed once under the table)."""
    constant = constant_metrics(rows, metrics)
    return [metric for metric in metrics if metric not in constant]


def table(rows: list[JobRow], metrics: list[str]) -> tuple[list[str], list[list[str]]]:
    """Header and cells: the job folder, the overrides that name it, its status and ``metrics``."""
    keys = swept_keys(rows) if len(rows) > 1 else sorted(rows[0].overrides)
    if is_tau2(rows):  # beta, lr and steps have columns of their own: each swept value is shown once
        keys = [key for key in keys if key not in TAU2_PARAMS.values()]
    header = ["job", "overrides", "status", *metrics]
    body = [[row.job, job_name(row, keys), row.status, *(cell(row, m) for m in metrics)] for row in rows]
    if is_tau2(rows):
        selected = selected_job(rows)
        header[1:1] = [*TAU2_PARAMS, "chosen_reward_sign", "selected", "overlaps_baseline"]
        for row, cells in zip(rows, body, strict=True):
            chosen = row.metrics.get("select_chosen_reward")
            sign = "" if chosen is None else "+" if chosen > 0 else "-"
            params = [row.config.get(key, "") for key in TAU2_PARAMS.values()]
            cells[1:1] = [*params, sign, "*" if row.job == selected else "", overlaps_baseline(row.metrics)]
    return header, body


def section(rows: list[JobRow], metrics: list[str]) -> tuple[list[str], list[list[str]], list[str]]:
    """A table of ``rows`` without its constant columns, and the notes that list them (and the shared overrides)."""
    constant = constant_metrics(rows, metrics)
    header, body = table(rows, [m for m in metrics if m not in constant])
    shared = shared_overrides(rows) if len(rows) > 1 else {}
    notes = [f"Every row: {', '.join(f'{k}={v}' for k, v in shared.items())}"] if shared else []
    notes += (
        [f"Same in every row: {', '.join(f'{m} = {c}' for m, c in constant.items())}"] if constant else []
    )
    return header, body, notes


def _markdown(title: str, header: list[str], body: list[list[str]], notes: list[str]) -> list[str]:
    lines = [f"# {title}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cells) + " |" for cells in body]
    return [*lines, "", *notes, ""] if notes else [*lines, ""]


def _breakable(text: str) -> str:
    """``text`` escaped, with line-break opportunities after each ``/`` and ``,`` (long metric names wrap)."""
    return html.escape(text).replace("/", "/<wbr>").replace(",", ",<wbr>")


def _html(
    title: str,
    header: list[str],
    body: list[list[str]],
    notes: list[str],
    highlighted: set[int] = frozenset(),
) -> str:
    cells = "".join(f"<th>{_breakable(h)}</th>" for h in header)
    trs = "".join(
        ("<tr class='selected'>" if index in highlighted else "<tr>")
        + "".join(f"<td>{_breakable(c)}</td>" for c in row)
        + "</tr>"
        for index, row in enumerate(body)
    )
    paragraphs = "".join(f"<p>{html.escape(note)}</p>" for note in notes)
    return f"<h2>{html.escape(title)}</h2><div class='scroll'><table><tr>{cells}</tr>{trs}</table></div>{paragraphs}"


def provenance(sweep_dir: Path, rows: list[JobRow]) -> dict[str, str]:
    """What the report is of: experiment (and sweep), the sweep folder, git commit, date and hardware, from the
    first job's summary.json (the jobs of one sweep share them)."""
    summary = json.loads((sweep_dir / rows[0].job / "summary.json").read_text())
    hardware = summary.get("hardware") or {}
    machine = ", ".join(
        str(part)
        for part in (hardware.get("device"), f"{hardware.get('cpu_count')} CPUs", hardware.get("platform"))
    )
    experiment = summary.get("experiment") or summary.get("task_name") or "?"
    if summary.get("sweep"):
        experiment += f" (+sweep={summary['sweep']})"
    modified = max((sweep_dir / row.job / "summary.json").stat().st_mtime for row in rows)
    return {
        "experiment": experiment,
        "sweep folder": str(sweep_dir.resolve()),
        "commit": str(summary.get("git_commit", "?"))[:12],
        "date": datetime.fromtimestamp(modified, tz=UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "hardware": machine if hardware else "?",
        "jobs": str(len(rows)),
    }


STYLE = (
    "body{font:14px/1.4 system-ui,sans-serif;margin:16px;max-width:1368px}"
    "header dl{display:grid;grid-template-columns:max-content auto;gap:2px 12px;margin:0 0 12px}"
    "header dt{font-weight:600}header dd{margin:0;overflow-wrap:anywhere}"
    ".scroll{overflow-x:auto}table{border-collapse:collapse;font-size:12px}"
    "td,th{border:1px solid #999;padding:3px 6px;vertical-align:top;max-width:16em}"
    "th{background:#eee;text-align:left}tr.selected td{background:#fff3b0;font-weight:600}"
    ".plots{display:flex;flex-wrap:wrap;gap:8px}.plots img{max-width:100%}"
)


def collect(
    sweep_dir: str | Path, metrics: list[str] | None = None
) -> tuple[list[JobRow], list[str], list[str]]:
    """The rows of a sweep, the metrics to report (the requested ones some job has, else every numeric one; a tau2
    sweep's own) and a note for each requested metric no job has: what report.md/html and the W&B report show."""
    rows = load_jobs(sweep_dir)
    missing: list[str] = []
    if metrics:
        metrics, missing = find_metrics(rows, metrics)
        for note in missing:
            log.warning("metric %s", note)
    else:
        metrics = tau2_metrics(rows) if is_tau2(rows) else numeric_metrics(rows)
    return rows, metrics, missing


def write_report(
    sweep_dir: str | Path,
    metrics: list[str] | None = None,
    seed: int = 0,
    collected: tuple[list[JobRow], list[str], list[str]] | None = None,
    seeds_vary: Collection[str] = (),
) -> tuple[Path, Path]:
    """Write report.md, report.html (with plots) and report.json into ``sweep_dir``; returns the first two. A
    requested metric no job has is named in the report and in a warning. ``seed`` seeds the bootstrap over seeds
    and tasks. The page opens with what it is of (:func:`provenance`); the selected configuration of a tau2 sweep
    is highlighted.
    ``collected``: what :func:`collect` returned, when the caller has it (the W&B report reads the same rows).
    ``seeds_vary``: override keys set per seed, whose jobs still group as seeds (:func:`seed_groups`)."""
    sweep_dir = Path(sweep_dir)
    rows, metrics, missing = collected or collect(sweep_dir, metrics)
    sections = [(f"Report: {sweep_dir.name}", rows)]
    grouped: list[JobRow] = []
    if has_seed_groups(rows, seeds_vary):
        grouped = [merge_seeds(group, metrics, seed) for group in seed_groups(rows, seeds_vary)]
        sections = [(f"Report: {sweep_dir.name}, across seeds", grouped), ("Jobs", rows)]
    numbers = {
        "jobs": {row.job: interval_records({**row.logged, **row.metrics}, metrics) for row in rows},
        "over_seeds": {group_name(row, grouped): interval_records(row.metrics, metrics) for row in grouped},
    }
    (sweep_dir / "report.json").write_text(json.dumps(numbers, indent=1) + "\n")
    about = provenance(sweep_dir, rows)
    md_lines: list[str] = []
    html_parts: list[str] = [
        "<header><h1>" + html.escape(f"{about['experiment']}: sweep {sweep_dir.name}") + "</h1><dl>"
        + "".join(f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>" for k, v in about.items())
        + "</dl></header>"
    ]  # fmt: skip
    selected = selected_job(rows) if is_tau2(rows) else None
    for index, (title, section_rows) in enumerate(sections):
        header, body, notes = section(section_rows, metrics)
        notes = [*notes, *(f"Not found: {note}" for note in missing)] if index == 0 else notes
        md_lines += _markdown(title, header, body, notes)
        highlighted = {i for i, row in enumerate(section_rows) if row.job == selected}
        html_parts.append(_html(title, header, body, notes, highlighted))
    varying = varying_metrics(sections[0][1], metrics)
    plots = make_plots(sections[0][1], sweep_dir, metrics=varying) if varying else []
    md_lines += ["## About", "", *(f"- {name}: {value}" for name, value in about.items()), ""]
    md_lines += [*(f"![{p.stem}]({p.name})" for p in plots), ""]
    md_path = sweep_dir / "report.md"
    md_path.write_text("\n".join(md_lines))
    images = "".join(f'<img src="{html.escape(p.name)}" alt="{html.escape(p.stem)}">' for p in plots)
    html_path = sweep_dir / "report.html"
    html_path.write_text(
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(sweep_dir.name)}</title>"
        f"<style>{STYLE}</style></head><body>{''.join(html_parts)}<div class='plots'>{images}</div></body></html>"
    )
    return md_path, html_path
