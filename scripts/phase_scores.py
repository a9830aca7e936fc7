"""Score the finished episodes of one phase of a run from its EventLog, as the run would have scored them:
python scripts/phase_scores.py RUN PHASE [PHASE ...] [--out FILE] [--task-scores]

For a run that was stopped before it wrote ``summary.json`` (killed, or out of time): each phase's
``eventlogs/<phase>.jsonl`` is scored with the run's own benchmark (``.hydra/config.yaml``) and ``episode_scores``,
every metric as its mean over tasks with its 95% bootstrap interval, seeded by the run's ``seed`` (as
``agenttune.stages.phases.evaluate`` computes them). Prints
the metrics; --out writes ``{phase: metrics}`` as JSON; --task-scores adds each phase's scores per task to the
run's ``task_scores.json`` (beside the phases there), so that ``scripts/compare_runs.py`` can pair its phases.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from omegaconf import OmegaConf

from agenttune.benchmarks.base import load_benchmark
from agenttune.events.io import load_jsonl
from agenttune.pipelines.self_evolve import task_scores
from agenttune.stats import with_intervals


def scores_by_task(run: Path, phase: str) -> dict[str, dict[str, float]]:
    """Each task's mean of every per-episode score of ``phase``, scored by the run's own benchmark."""
    benchmark = load_benchmark(OmegaConf.load(run / ".hydra" / "config.yaml"))
    logs = load_jsonl(run / "eventlogs" / f"{phase}.jsonl")
    if not logs:
        raise SystemExit(f"error: {run}/eventlogs/{phase}.jsonl holds no finished episode")
    by_task = task_scores(benchmark, logs)
    if not by_task:
        raise SystemExit(f"error: benchmark {benchmark.name!r} defines no episode_scores")
    return by_task


def with_task_intervals(run: Path, by_task: dict[str, dict[str, float]]) -> dict[str, float]:
    """The mean of every score over the tasks, with ``/n`` and its 95% interval seeded by the run's ``seed``."""
    return with_intervals(list(by_task.values()), OmegaConf.load(run / ".hydra" / "config.yaml").seed)


def phase_scores(run: Path, phase: str) -> dict[str, float]:
    """The mean of every per-episode score of ``phase`` over its tasks, with ``/n`` and its 95% interval."""
    return with_task_intervals(run, scores_by_task(run, phase))


def add_task_scores(run: Path, by_phase: dict[str, dict[str, dict[str, float]]]) -> None:
    """Each phase's scores per task (phase -> task -> metric) into ``run/task_scores.json``, beside the phases
    already there."""
    path = run / "task_scores.json"
    recorded = json.loads(path.read_text()) if path.exists() else {}
    path.write_text(json.dumps(recorded | by_phase, indent=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a run folder (.hydra/ and eventlogs/)")
    parser.add_argument("phases", nargs="+", help="eventlogs/<phase>.jsonl to score, e.g. eval_baseline")
    parser.add_argument("--out", type=Path, help="also write {phase: metrics} to this JSON file")
    parser.add_argument(
        "--task-scores", action="store_true", help="add the scores per task to RUN/task_scores.json"
    )
    args = parser.parse_args()
    by_phase = {phase: scores_by_task(args.run, phase) for phase in args.phases}  # each phase scored once
    results = {phase: with_task_intervals(args.run, by_task) for phase, by_task in by_phase.items()}
    if args.task_scores:
        add_task_scores(args.run, by_phase)
    print(json.dumps(results, indent=2))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"run": str(args.run), **results}, indent=2) + "\n")


if __name__ == "__main__":
    main()
