"""The CUAD retrieval teacher under several harness settings: what its trajectories would teach a warm start.

The main job's warm start distils the scripted teacher's kept trajectories (``warm_start.num_questions`` train
questions, kept when they pass the benchmark's checks). This runs the teacher on those questions once per
``--view`` (a harness override set, composed over ``+experiment=cuad_grpo``) and reports, side by side, how many
trajectories are kept and their exact match, token F1 and ``quote_shown`` (a passage showed a gold quote whole), over
all episodes and over the kept ones. No model runs: the teacher is scripted, so this takes seconds a view.

    python scripts/bench/cuad_teacher.py
    python scripts/bench/cuad_teacher.py --view harness.snippet_chars=320 --view harness.snippet_chars=0

Prints a table and writes JSON (default ``outputs/bench/cuad_teacher.json``).
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from agenttune.benchmarks.base import load_benchmark
from agenttune.benchmarks.cuad.metrics import episode_scores
from agenttune.config import repo_root
from agenttune.config_store import compose_config
from agenttune.models import load_tokenizer
from agenttune.stages.phases import episodes
from agenttune.tracking.run import RunContext, hardware

VIEWS = [
    "harness.snippet_chars=500 harness.snippet_finish_sentence=false",
    "harness.snippet_chars=600 harness.snippet_finish_sentence=true",
]
METRICS = ("em", "f1", "quote_shown")


def teacher_scores(overrides: list[str], run_dir: Path) -> dict[str, float]:
    """The teacher's episodes on the warm-start questions of ``+experiment=cuad_grpo`` with ``overrides``."""
    cfg = compose_config(["+experiment=cuad_grpo", "logger=none", *overrides], run_dir)
    benchmark = load_benchmark(cfg)
    tokenizer = load_tokenizer(cfg.model, cfg.paths.cache_dir)
    tasks = benchmark.tasks("train", cfg.warm_start.num_questions)
    logs = episodes(
        cfg,
        benchmark,
        lambda task: benchmark.teacher(task, tokenizer),
        tasks,
        "teacher",
        RunContext(cfg, run_dir),
    )
    by_id = {task.id: task for task in tasks}
    scored = [
        (not benchmark.check(log, by_id[log.task_id]), episode_scores(log, by_id[log.task_id]))
        for log in logs
    ]
    kept = [scores for is_kept, scores in scored if is_kept]
    result: dict[str, float] = {"episodes": len(scored), "kept": len(kept)}
    for metric in METRICS:
        result[f"{metric}/all"] = round(sum(scores[metric] for _, scores in scored) / len(scored), 3)
        result[f"{metric}/kept"] = round(sum(scores[metric] for scores in kept) / max(len(kept), 1), 3)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--view", action="append", help="space-separated overrides (repeat; default: VIEWS)")
    parser.add_argument(
        "--out", type=Path, default=Path(repo_root()) / "outputs" / "bench" / "cuad_teacher.json"
    )
    args = parser.parse_args()
    results = {}
    for view in args.view or VIEWS:
        with tempfile.TemporaryDirectory() as run_dir:
            results[view] = teacher_scores(view.split(), Path(run_dir))

    columns = ["kept", *(f"{metric}/{part}" for metric in METRICS for part in ("all", "kept"))]
    lines = [f"| harness | {' | '.join(columns)} |", "| --- |" + " --- |" * len(columns)]
    lines += [f"| {view} | {' | '.join(str(r[c]) for c in columns)} |" for view, r in results.items()]
    table = "\n".join(lines)
    print(table)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"hardware": hardware(), "results": results, "table": table}, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
