"""Per-step training curves of on-policy runs, read from each run folder's ``metrics.jsonl`` and drawn side by side.

:data:`CURVES` are what GRPO's steps log: TRL's GRPOTrainer logs the reward's mean and standard deviation over
the step's episodes, the policy's entropy, the loss, and the KL to the reference policy (only when
``algorithm.beta > 0``); the episode rollouts add the mean tool calls per episode (``episodes/tool_calls``) and
each reward component (``reward/<name>``). A run resumed from a checkpoint logs only the steps after it;
:func:`resumed_series` puts the killed run's steps before them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from agenttune.tracking.jobs import metric_records

CURVES = {
    "train/reward": "reward, mean over the step's episodes",
    "train/reward_std": "reward, std over the step's episodes",
    "train/kl": "KL to the reference (beta > 0)",
    "train/entropy": "entropy (nats a token)",
    "train/episodes/tool_calls": "tool calls per episode",
    "train/loss": "loss",
}

Series = dict[str, list[tuple[int, float]]]  # metric -> (step, value), in step order


def checkpoint_step(checkpoint: str | Path) -> int:
    """The step of a ``.../checkpoint-<step>`` folder."""
    return int(Path(checkpoint).name.rsplit("-", 1)[-1])


def resumed_records(run_dir: str | Path, resumed_from: str | None) -> list[dict]:
    """The records of ``run_dir/metrics.jsonl``; for a run that continued (``train/resumed_from`` in its summary)
    from a checkpoint of an earlier, killed run, that run's records up to the checkpoint first, then this run's
    after it. Records without a step (``"step": null``, as :meth:`~agenttune.tracking.run.Run.log` writes an
    evaluation's) are kept from both."""
    records = run_records(run_dir)
    if not resumed_from:
        return records
    start = checkpoint_step(resumed_from)
    earlier = run_records(Path(resumed_from).parent.parent)
    return [r for r in earlier if r.get("step") is None or r["step"] <= start] + [
        r for r in records if r.get("step") is None or r["step"] > start
    ]


def resumed_series(run_dir: str | Path, resumed_from: str | None) -> Series:
    """:func:`step_series` of :func:`resumed_records`: a resumed run's curves with the killed run's steps first."""
    return records_series(resumed_records(run_dir, resumed_from))


def run_records(run_dir: str | Path) -> list[dict]:
    """The records of ``run_dir/metrics.jsonl`` (a last line cut short by a killed run is skipped)."""
    path = Path(run_dir) / "metrics.jsonl"
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist: not a run folder")
    return metric_records(path)


def step_series(run_dir: str | Path, metrics: Sequence[str] = tuple(CURVES)) -> Series:
    """Each of ``metrics`` at every step that logged it in ``run_dir/metrics.jsonl``."""
    return records_series(run_records(run_dir), metrics)


def records_series(records: Sequence[Mapping], metrics: Sequence[str] = tuple(CURVES)) -> Series:
    """Each of ``metrics`` at every step of ``records`` that logged it."""
    series: Series = {metric: [] for metric in metrics}
    for record in records:
        for metric in metrics:
            if record.get("step") is not None and isinstance(record.get(metric), int | float):
                series[metric].append((int(record["step"]), float(record[metric])))
    return series


def plot_curves(runs: Mapping[str, Series], out: str | Path, title: str = "") -> Path:
    """One panel per metric of :data:`CURVES` with one line per run (``runs``: label -> its
    :func:`step_series`), saved as a PNG at ``out``; a metric no run logged says so in its panel."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    metrics = list(CURVES)
    columns = 3
    rows = -(-len(metrics) // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 3.0 * rows), squeeze=False)
    for axis, metric in zip(axes.flat, metrics, strict=False):
        drawn = False
        for label, series in runs.items():
            points = series.get(metric, [])
            if points:
                axis.plot(*zip(*points, strict=True), marker="o", markersize=2.5, label=label)
                drawn = True
        axis.set_title(f"{metric}\n{CURVES[metric]}", fontsize=8)
        axis.set_xlabel("GRPO step", fontsize=8)
        if drawn:
            axis.legend(fontsize=7)
        else:
            axis.text(0.5, 0.5, "not logged", ha="center", va="center", transform=axis.transAxes)
    for axis in list(axes.flat)[len(metrics) :]:
        axis.set_visible(False)
    if title:
        fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    out = Path(out)
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out
