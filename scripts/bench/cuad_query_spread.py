"""How far a CUAD student's sampled first searches spread at each rollout temperature: the evidence signal that
GRPO's groups would carry.

GRPO learns from the differences between the episodes of a group (one question sampled ``--group`` times). In the
GRPO study (experiments/cuad_search, "What did not work") the evidence component split few groups, so GRPO
left retrieval as it was: do a group's first searches differ, and do they find different evidence? This samples
``--group`` first turns of each of ``--questions`` train questions from a student at each ``--temperature``,
through the project's episode loop with the strategy's turn budget cut to 1 (each episode is its first search),
scores them with the experiment's reward, and reports per temperature: the groups whose first queries differ, the
groups whose hit@8 differs, the groups whose evidence component differs and its weighted within-group spread
(:func:`agenttune.tracking.group_signal.group_signal`, the part of the advantage it carries), the mean hit@8, and
the episodes that made no search (a malformed call or none).

    python scripts/bench/cuad_query_spread.py outputs/cuad_grpo/runs/<run>/checkpoints/distill/final
    python scripts/bench/cuad_query_spread.py <student> --temperature 0.7 --temperature 1.2 --questions 64

The config is ``+experiment=cuad_grpo_study`` (its 64 train questions, harness and reward) with ``--override``s.
Prints a table and writes JSON (default ``outputs/bench/cuad_query_spread.json``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path

from agenttune.benchmarks.base import load_benchmark
from agenttune.benchmarks.search import first_query
from agenttune.config import ModelConfig, repo_root
from agenttune.config_store import compose_config
from agenttune.engines.factory import build_engine
from agenttune.events.projections.evaluator import evaluator_input
from agenttune.events.schema import EventLog
from agenttune.stages.phases import scored_episodes
from agenttune.stages.policy import load_policy, typed
from agenttune.tracking.group_signal import group_signal
from agenttune.tracking.run import hardware

TEMPERATURES = (0.7, 1.0, 1.3)  # the study's rollouts sample at 0.7


def spread(
    logs: Sequence[EventLog], scores: Sequence[Mapping[str, float]], weights: Mapping[str, float]
) -> dict[str, float]:
    """Per-group spread of scored episodes grouped by task: how many groups, in how many the first queries, hit@8
    and the evidence component differ, evidence's weighted within-group spread, the mean hit@8 and the share of
    episodes without a search."""
    queries = [first_query(evaluator_input(log)) for log in logs]
    groups: dict[str, list[tuple[str | None, float]]] = defaultdict(list)
    for log, query, score in zip(logs, queries, scores, strict=True):
        groups[log.task_id].append((query, score["hit@8"]))
    evidence = group_signal([logs], weights).get("evidence")
    return {
        "groups": len(groups),
        "queries_differ": sum(len({query for query, _ in g}) > 1 for g in groups.values()),
        "hit@8_differs": sum(len({hit for _, hit in g}) > 1 for g in groups.values()),
        "evidence_differs": evidence.varied if evidence else 0,
        "evidence_share": round(evidence.weighted_std, 4) if evidence else 0.0,
        "hit@8": round(statistics.fmean(score["hit@8"] for score in scores), 3),
        "no_search": round(queries.count(None) / len(logs), 3),
    }


def sample_first_searches(cfg, benchmark, model, tokenizer, tasks, temperature: float, group: int):
    """``group`` first turns of each task, sampled at ``temperature`` and scored: (logs, per-episode scores)."""
    model_cfg = dataclasses.replace(typed(cfg.model, ModelConfig), temperature=temperature)
    engine = build_engine(model_cfg, model.eval(), tokenizer)
    return scored_episodes(
        cfg, benchmark, engine, [task for task in tasks for _ in range(group)], max_turns=1
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("student", type=Path, help="a policy checkpoint folder (a warm-started student)")
    parser.add_argument("--temperature", type=float, action="append", help=f"repeat (default {TEMPERATURES})")
    parser.add_argument("--questions", type=int, default=32, help="train questions (the study has 64)")
    parser.add_argument("--group", type=int, default=4, help="samples a question, as GRPO's num_generations")
    parser.add_argument("--override", action="append", default=[], help="a config override (repeat)")
    parser.add_argument(
        "--out", type=Path, default=Path(repo_root()) / "outputs" / "bench" / "cuad_query_spread.json"
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as run_dir:
        overrides = ["+experiment=cuad_grpo_study", "algorithm.learning_rate=1e-6", "logger=none"]
        cfg = compose_config([*overrides, *args.override], run_dir)
    benchmark = load_benchmark(cfg)
    tasks = benchmark.tasks("train", args.questions)
    model, tokenizer = load_policy(cfg, str(args.student))
    results = {}
    for temperature in args.temperature or TEMPERATURES:
        started = time.perf_counter()
        logs, scores = sample_first_searches(cfg, benchmark, model, tokenizer, tasks, temperature, args.group)
        results[temperature] = spread(logs, scores, cfg.reward.weights) | {
            "seconds": round(time.perf_counter() - started, 1)
        }

    columns = list(next(iter(results.values())))
    lines = [f"| temperature | {' | '.join(columns)} |", "| --- |" + " --- |" * len(columns)]
    lines += [f"| {t} | {' | '.join(str(r[c]) for c in columns)} |" for t, r in results.items()]
    table = "\n".join(lines)
    print(table)
    setup = {
        "student": str(args.student),
        "questions": len(tasks),
        "group": args.group,
        "overrides": args.override,
        "hardware": hardware(),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"setup": setup, "results": results, "table": table}, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
