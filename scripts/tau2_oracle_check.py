"""Replay every task's gold actions through the tau2 harness and print reward and time per domain.

    .venv/bin/python scripts/tau2_oracle_check.py [--split base] [--domains airline retail telecom]

Every task should score 1.0: the harness, the scripted user and the reward are then consistent with tau2's
own evaluators.
"""

from __future__ import annotations

import argparse
import time

from agenttune.benchmarks.tau2.domains import DOMAINS
from agenttune.benchmarks.tau2.harness import Tau2Harness
from agenttune.benchmarks.tau2.metrics import episode_reward, summarize
from agenttune.benchmarks.tau2.oracle import oracle_script, script_engine
from agenttune.benchmarks.tau2.runner import run_tasks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="base")
    parser.add_argument("--domains", nargs="+", default=list(DOMAINS))
    args = parser.parse_args()
    for domain in args.domains:
        start = time.perf_counter()
        tasks = Tau2Harness(domain).tasks(args.split)
        oracle = lambda task: script_engine(oracle_script(task))  # noqa: E731
        logs = run_tasks(oracle, lambda d=domain: Tau2Harness(d), tasks, domain, "oracle", progress=True)
        seconds = time.perf_counter() - start
        summary = summarize(logs)
        below = [log.task_id for log in logs if episode_reward(log) < 1.0]
        print(
            f"{domain}: {len(tasks)} tasks, avg reward {summary['avg_reward']:.3f}, "
            f"{len(tasks) - len(below)}/{len(tasks)} at 1.0, {seconds:.1f} s ({seconds / len(tasks):.2f} s/task)"
            + (f", below 1.0: {below}" if below else "")
        )


if __name__ == "__main__":
    main()
