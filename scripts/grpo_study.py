"""The GRPO study's read-outs (conf/experiment/cuad_grpo_study.yaml; experiments/cuad_search, "GRPO at study size").

    python scripts/grpo_study.py curves <multirun or run folder>   # curves.png + curves.json, delta_rl per seed
    python scripts/grpo_study.py select <LR sweep folder>          # the learning rate the selection rule picks
    python scripts/grpo_study.py signal <multirun or run folder>   # which reward components GRPO's groups split on
    python scripts/grpo_study.py keep <multirun folder> <records folder>   # completed jobs' records, to commit
    python scripts/grpo_study.py deltas <multirun or records folder>  # deltas.json: per job and over seeds

curves: per-step reward mean/std, KL, entropy, tool calls per episode and loss of every completed job (labelled by
its seed and swept values; a job resumed after a kill with the killed run's steps first), side by side in
<folder>/curves.png (the values in curves.json); then each job's paired delta_rl (after GRPO minus the warm start
on the same held-out questions, 95% bootstrap interval over questions) and, for jobs that differ only by seed,
the mean over seeds with the two-way interval over seeds and questions.

deltas: <folder>/deltas.json, the numbers the study's page and the README quote: per completed job and, for jobs
that differ only by seed, over seeds (the two-way interval of scripts/report.py), each of DELTAS and the reward and
hit@8 at the evaluations around GRPO, with its 95% interval and n.

select: the rate whose job has the highest mean delta_rl/reward on the sweep's validation questions; among rates
within --tolerance of it, the lowest (the smaller step that does as well).

signal: per completed job, each reward component's share of GRPO's advantage over its logged rollouts
(agenttune.tracking.group_signal), and how many held-out questions kept eval_warm's first search query after GRPO (and how many of those queries
are made only of the question's words).

keep: each completed job's record (summary.json, task_scores.json, metrics.jsonl, .hydra/config.yaml and
overrides.yaml; not its checkpoints or EventLogs) copied into <records folder>/<job>, where curves and
scripts/report.py read it as they read the job. A study outlives the machine it runs on (a seed job took 1 h 45 min
to 2 h 56 min here); its records are small enough to commit, so seeds run on different days are read out together.
A job resumed after a kill is kept whole: the killed run's steps up to its checkpoint, then the resumed run's.
"""

import argparse
import json
import re
import shutil
import sys
from pathlib import Path

from omegaconf import OmegaConf

from agenttune.benchmarks.search import first_query
from agenttune.events.io import read_jsonl
from agenttune.events.projections.evaluator import evaluator_input
from agenttune.tracking.curves import checkpoint_step, plot_curves, resumed_records, resumed_series
from agenttune.tracking.group_signal import group_signal
from agenttune.tracking.jobs import JobRow, load_jobs
from agenttune.tracking.report import interval_records, job_name, swept_keys
from agenttune.tracking.seeds import merge_seeds, seed_groups

DELTAS = ["delta_rl/reward", "delta_rl/hit@8", "delta_rl/em", "delta_rl/f1", "delta_rl/tool_call_rate"]
LR_KEY = "algorithm.learning_rate"


def jobs(folder: Path) -> list[tuple[Path, JobRow]]:
    """(job folder, row) of every job of a multirun folder, or of one run folder."""
    if (folder / "summary.json").exists():  # one run: load_jobs reads its parent, as a folder of runs
        return [(folder, row) for row in load_jobs(folder.parent) if row.job == folder.name]
    return [(folder / row.job, row) for row in load_jobs(folder)]


def label(row: JobRow, rows: list[JobRow]) -> str:
    """The job named by the overrides that differ between ``rows`` (its seed, in a study folder)."""
    return job_name(row, swept_keys(rows)) or row.job


def interval(values: dict, metric: str) -> str:
    value = values.get(metric)
    if value is None:
        return "-"
    low, high = values.get(f"{metric}/ci_low"), values.get(f"{metric}/ci_high")
    return f"{value:+.3f} [{low:+.3f}, {high:+.3f}]" if low is not None else f"{value:+.3f}"


def curves(folder: Path) -> None:
    found = [(path, row) for path, row in jobs(folder) if row.status == "completed"]
    if not found:
        raise SystemExit(f"error: no completed job under {folder}")
    rows = [row for _, row in found]
    series = {
        label(row, rows): resumed_series(path, row.metrics.get("train/resumed_from")) for path, row in found
    }
    png = plot_curves(series, folder / "curves.png", title=str(folder))
    (folder / "curves.json").write_text(json.dumps(series, indent=1))
    print(f"wrote {png} and {folder / 'curves.json'}")
    print("\n| job | " + " | ".join(DELTAS) + " |\n|" + " --- |" * (len(DELTAS) + 1))
    for row in rows:
        print(f"| {label(row, rows)} | " + " | ".join(interval(row.metrics, m) for m in DELTAS) + " |")
    for group in seed_groups(rows):
        if len(group) > 1:
            merged = merge_seeds(group, DELTAS)
            print(
                f"| over seeds: {label(merged, rows)} | "
                + " | ".join(interval(merged.metrics, m) for m in DELTAS)
                + " |"
            )


SUMMARY = DELTAS + ["eval_warm/reward", "eval_after/reward", "eval_warm/hit@8", "eval_after/hit@8"]


def deltas(folder: Path) -> None:
    found = [(path, row) for path, row in jobs(folder) if row.status == "completed"]
    if not found:
        raise SystemExit(f"error: no completed job under {folder}")
    rows = [row for _, row in found]
    out = {
        "jobs": {
            label(row, rows): {
                "job": row.job,
                "wall_time_s": json.loads((path / "summary.json").read_text()).get("wall_time_s"),
                "metrics": interval_records(row.metrics, SUMMARY),
            }
            for path, row in found
        },
        "over_seeds": {},
    }
    for group in seed_groups(rows):
        if len(group) > 1:
            merged = merge_seeds(group, SUMMARY)
            out["over_seeds"][label(merged, rows)] = interval_records(merged.metrics, SUMMARY)
    target = folder / "deltas.json"
    target.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {target}")


def rollout_steps(path: Path, resumed_from: str | None) -> list[Path]:
    """The run's ``eventlogs/train/step-<n>.jsonl`` in step order; a resumed run's first steps are its killed run's."""

    def by_step(run: Path) -> dict[int, Path]:
        files = (run / "eventlogs" / "train").glob("step-*.jsonl")
        return {int(file.stem.removeprefix("step-")): file for file in files}

    steps = by_step(path)
    if resumed_from:
        start = checkpoint_step(resumed_from)
        earlier = by_step(Path(resumed_from).parent.parent)
        steps = {
            **{n: f for n, f in earlier.items() if n < start},
            **{n: f for n, f in steps.items() if n >= start},
        }
    return [steps[n] for n in sorted(steps)]


def first_queries(path: Path) -> dict[str, tuple[str, str | None]]:
    """task id -> (the question, the first search query or None) of each episode of an evaluation's EventLog."""
    records = [evaluator_input(log) for log in read_jsonl(path).logs]
    return {record["task_id"]: (record["question"], first_query(record)) for record in records}


def words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


def signal(folder: Path) -> None:
    for path, row in jobs(folder):
        if row.status != "completed":
            continue
        weights = OmegaConf.load(path / ".hydra" / "config.yaml").reward.weights
        steps = [
            read_jsonl(f, strict=False).logs
            for f in rollout_steps(path, row.metrics.get("train/resumed_from"))
        ]
        print(
            f"\n{path.name} ({len(steps)} steps): component | groups it varied in | weight x within-group std"
        )
        for name, part in sorted(
            group_signal(steps, weights).items(), key=lambda item: -item[1].weighted_std
        ):
            print(f"  {name:12s} | {part.varied:3d} of {part.groups} | {part.weighted_std:.3f}")
        warm, after = (
            first_queries(path / "eventlogs" / f"{phase}.jsonl") for phase in ("eval_warm", "eval_after")
        )
        kept = sum(query == after.get(task, (None, None))[1] for task, (_, query) in warm.items())
        searched = [(question, query) for question, query in warm.values() if query]
        copied = sum(words(query) <= words(question) for question, query in searched)
        print(f"  first search query as in eval_warm: {kept} of {len(warm)}")
        print(f"  eval_warm first queries made only of the question's words: {copied} of {len(searched)}")


def select(folder: Path, tolerance: float) -> None:
    scored = []
    for _, row in jobs(folder):
        value = row.metrics.get("delta_rl/reward")
        if LR_KEY not in row.overrides or value is None:
            print(
                f"skipped {row.job}: no {LR_KEY} override or no delta_rl/reward ({row.status})",
                file=sys.stderr,
            )
            continue
        scored.append((float(row.overrides[LR_KEY]), value, row))
    if not scored:
        raise SystemExit(f"error: no job under {folder} has both {LR_KEY} and delta_rl/reward")
    for rate, _, row in sorted(scored, key=lambda item: item[0]):
        print(f"lr {rate:g}: delta_rl/reward {interval(row.metrics, 'delta_rl/reward')}", file=sys.stderr)
    best = max(value for _, value, _ in scored)
    print(f"{min(rate for rate, value, _ in scored if value >= best - tolerance):g}")


RECORD = ["summary.json", "task_scores.json", ".hydra/config.yaml", ".hydra/overrides.yaml"]


def keep(folder: Path, records: Path) -> None:
    kept = 0
    for path, row in jobs(folder):
        if row.status != "completed":
            print(f"skipped {row.job}: {row.status}", file=sys.stderr)
            continue
        target = records / row.job
        (target / ".hydra").mkdir(parents=True, exist_ok=True)
        for name in RECORD:
            shutil.copyfile(path / name, target / name)
        resumed_from = row.metrics.get("train/resumed_from")
        # a resumed run is kept whole: the killed run's steps first
        records_kept = resumed_records(path, resumed_from)
        if resumed_from:
            summary = json.loads((path / "summary.json").read_text())
            summary["metrics"].pop("train/resumed_from")  # kept whole: no other folder to read
            (target / "summary.json").write_text(json.dumps(summary, indent=1))
        (target / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records_kept))
        kept += 1
        print(f"kept {path} -> {target}")
    if not kept:
        raise SystemExit(f"error: no completed job under {folder}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("curves", help="curves.png and delta_rl of a study folder").add_argument(
        "folder", type=Path
    )
    commands.add_parser("signal", help="which reward components GRPO's groups split on").add_argument(
        "folder", type=Path
    )
    commands.add_parser("deltas", help="deltas.json: per job and over seeds, with intervals").add_argument(
        "folder", type=Path
    )
    keeper = commands.add_parser("keep", help="copy completed jobs' records (no checkpoints) to commit them")
    keeper.add_argument("folder", type=Path)
    keeper.add_argument("records", type=Path)
    chooser = commands.add_parser("select", help="print the learning rate the rule picks from an LR sweep")
    chooser.add_argument("folder", type=Path)
    chooser.add_argument(
        "--tolerance", type=float, default=0.01, help="delta_rl/reward within this of the best"
    )
    args = parser.parse_args()
    try:
        if args.command == "select":
            select(args.folder, args.tolerance)
        elif args.command == "keep":
            keep(args.folder, args.records)
        else:
            {"curves": curves, "signal": signal, "deltas": deltas}[args.command](args.folder)
    except FileNotFoundError as error:
        raise SystemExit(f"error: {error}") from None


if __name__ == "__main__":
    main()
