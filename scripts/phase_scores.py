"""Score the finished episodes of one phase of a run from its EventLog, as the run would have scored them:
python scripts/phase_scores.py RUN PHASE [PHASE ...] [--out FILE] [--task-scores]

For a run that was stopped before it wrote ``summary.json`` (killed, or out of time): each phase's
``eventlogs/<phase>.jsonl`` is scored with the run's own benchmark (``.hydra/config.yaml``) and ``episode_scores``,
every metric as its mean over tasks with its 95% bootstrap interval, seeded by the run's ``seed`` (as
``agenttune.stages.phases.evaluate`` computes them). Prints
the metrics; --out writes ``{phase: metrics}`` as JSON; --task-scores adds each phase's scores per task to the
run's ``task_scores.json`` (beside the phases there), so that ``scripts/compare_runs.py`` can pair its phases.

python scripts/phase_scores.py RUN --variants: for a ``self_evolve`` run written before the pipeline recorded its
variants per task, records them as it now does (``self_evolve.compare_variants``: ``eval/<variant>`` and the paired
differences ``eval/<variant>/<domain>/delta``, from ``eventlogs/eval_<variant>.jsonl``) in ``task_scores.json``, so
that ``scripts/report.py`` bootstraps over its tasks beside later seeds; prints the metrics they give (the run's
summary.json's means; the bootstrap draws tasks in the EventLog's order, so an interval over a few tasks can move).
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from omegaconf import OmegaConf

from agenttune.benchmarks.base import load_benchmark
from agenttune.events.io import load_jsonl
from agenttune.pipelines.self_evolve import VARIANTS, compare_variants, task_scores
from agenttune.stats import with_intervals
from agenttune.tracking.run import RunContext


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


def record_variants(run: Path) -> dict[str, float]:
    """A self_evolve run's variants per task and their paired differences, added to ``run/task_scores.json`` as
    the pipeline records them; returns the metrics ``compare_variants`` computes from them."""
    cfg = OmegaConf.load(run / ".hydra" / "config.yaml")
    benchmark = load_benchmark(cfg)
    domains = {name: benchmark.domain(name) for name in benchmark.domains}
    variants = {variant: load_jsonl(run / "eventlogs" / f"eval_{variant}.jsonl") for variant in VARIANTS}
    with tempfile.TemporaryDirectory() as scratch:  # the pipeline's own recording, then merged into the run's
        recorder = RunContext(cfg, scratch)
        metrics = compare_variants(cfg, recorder, benchmark, domains, variants)
        add_task_scores(run, json.loads(recorder.task_scores_path.read_text()))
    return metrics


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a run folder (.hydra/ and eventlogs/)")
    parser.add_argument("phases", nargs="*", help="eventlogs/<phase>.jsonl to score, e.g. eval_baseline")
    parser.add_argument("--out", type=Path, help="also write {phase: metrics} to this JSON file")
    parser.add_argument(
        "--task-scores", action="store_true", help="add the scores per task to RUN/task_scores.json"
    )
    parser.add_argument(
        "--variants",
        action="store_true",
        help="a self_evolve run: record its variants per task and their paired differences in task_scores.json",
    )
    args = parser.parse_args()
    if args.variants:
        print(json.dumps(record_variants(args.run), indent=2))
        return
    if not args.phases:
        parser.error("name the phases to score, or give --variants")
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
