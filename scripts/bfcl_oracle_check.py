"""Play BFCL's ground truth (and each perturbed oracle) on every task of every multi-turn category, scored by BFCL's
own checker; print a table and write JSON.

    .venv/bin/python scripts/bfcl_oracle_check.py [--categories base miss_func] [--agents oracle skip_write] \
        [--out experiments/tau2_self_evolution/results/bfcl_oracle.json]

The oracle should score 1.0 on every task (the harness, the oracle and the checker agree with BFCL); each
perturbed oracle plays the ground truth with one mistake and should score below it. Turn accuracy is the share of
a task's turns that pass the checker before the first that fails.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from agenttune.benchmarks.base import load_benchmark
from agenttune.benchmarks.bfcl.benchmark import AGENTS
from agenttune.config_store import compose_config
from agenttune.harness.bfcl import CATEGORIES
from agenttune.stages.phases import scored_episodes
from agenttune.stats import with_intervals


def check(category: str, agent: str) -> dict[str, float]:
    """Mean verdict and turn accuracy of ``agent`` over every task of ``category`` with 95% intervals, and the time
    it took."""
    overrides = ["+experiment=tau2_oracle", "benchmark=bfcl_multi_turn", f"benchmark.category={category}"]
    cfg = compose_config([*overrides, "benchmark.split=base", "logger=none"], tempfile.mkdtemp())
    benchmark = load_benchmark(cfg)
    start = time.perf_counter()
    tasks = benchmark.tasks("eval")
    _, scores = scored_episodes(cfg, benchmark, benchmark.scripted_agent(agent), tasks)
    interval = with_intervals(
        [{"reward": score["avg_reward"], "turn_accuracy": score["turn_accuracy"]} for score in scores]
    )
    return {**interval, "seconds": round(time.perf_counter() - start, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--categories", nargs="+", default=list(CATEGORIES))
    parser.add_argument("--agents", nargs="+", default=list(AGENTS), choices=AGENTS)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    results = {}
    print("| category | agent | tasks | reward [95% CI] | turn accuracy [95% CI] | time (s) |")
    print("|---|---|---|---|---|---|")
    for category in args.categories:
        for agent in args.agents:
            row = check(category, agent)
            results.setdefault(category, {})[agent] = row
            print(
                f"| {category} | {agent} | {row['reward/n']} | {row['reward']:.3f} "
                f"[{row['reward/ci_low']:.3f}, {row['reward/ci_high']:.3f}] | {row['turn_accuracy']:.3f} "
                f"[{row['turn_accuracy/ci_low']:.3f}, {row['turn_accuracy/ci_high']:.3f}] | {row['seconds']} |"
            )
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=2) + "\n")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
