"""Two runs' evaluations compared task by task: the effect of whatever sets run B apart from run A (an ablation, a
config change, a retrained policy), paired on the tasks both evaluated.

Each run folder's ``task_scores.json`` holds an evaluation phase's scores per task (``eval_after``, ``eval_warm``,
...). :func:`compare_runs` returns, for every metric both phases scored, the means of A and B over the shared tasks
and B minus A with its 95% bootstrap interval over those tasks (:func:`agenttune.stats.paired_deltas`): B differs
from A on a metric when the interval excludes zero. ``python scripts/compare_runs.py`` prints it as a table.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agenttune.stats import paired_deltas, paired_differences


def phase_scores(run_dir: str | Path, phase: str) -> dict[str, dict[str, float]]:
    """``phase``'s scores by task from ``run_dir/task_scores.json``; an error naming what is missing otherwise."""
    path = Path(run_dir) / "task_scores.json"
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist: is {run_dir} a finished run folder?")
    scores = json.loads(path.read_text())
    if phase not in scores:
        raise ValueError(f"{path} has no phase {phase!r}; it has {sorted(scores)}")
    return scores[phase]


def compare_runs(
    run_a: str | Path, run_b: str | Path, phase_a: str, phase_b: str, seed: int = 0
) -> dict[str, dict[str, Any]]:
    """metric -> ``{a, b, b_minus_a, ci_low, ci_high, n}`` over the ``n`` tasks both phases scored on that metric (a
    metric some tasks lack, such as a span metric of queries without gold spans, is paired where both have it)."""
    a, b = phase_scores(run_a, phase_a), phase_scores(run_b, phase_b)
    shared = sorted(set(a) & set(b))
    if not shared:
        raise ValueError(f"{run_a} ({phase_a}) and {run_b} ({phase_b}) share no task: nothing to pair")
    deltas = paired_deltas(paired_differences(a, b), seed=seed)
    rows = {}
    for metric in dict.fromkeys(name for t in shared for name in a[t]):
        if f"delta/{metric}" not in deltas:
            continue
        scored = [t for t in shared if metric in a[t] and metric in b[t]]  # span metrics skip some tasks
        rows[metric] = {
            "a": sum(a[t][metric] for t in scored) / len(scored),
            "b": sum(b[t][metric] for t in scored) / len(scored),
            "b_minus_a": deltas[f"delta/{metric}"],
            "ci_low": deltas[f"delta/{metric}/ci_low"],
            "ci_high": deltas[f"delta/{metric}/ci_high"],
            "n": deltas[f"delta/{metric}/n"],
        }
    return rows
