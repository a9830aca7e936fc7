"""Replay every task's gold actions through the tau2 harness and print reward and time per domain.

    .venv/bin/python scripts/tau2_oracle_check.py [--split base] [--domains airline retail telecom]
    .venv/bin/python scripts/tau2_oracle_check.py --domains banking_knowledge --agents oracle skip_write loop

Every task should score 1.0 with the oracle: the harness, the scripted user and the reward are then consistent
with tau2's own evaluators. A perturbed oracle (``--agents``) is run on the tasks it changes, and should score
below 1.0 there.
"""

from __future__ import annotations

import argparse
import time

from agenttune.benchmarks.tau2.domains import DOMAINS
from agenttune.benchmarks.tau2.harness import Tau2Harness
from agenttune.benchmarks.tau2.metrics import episode_reward, summarize
from agenttune.benchmarks.tau2.oracle import PERTURBATIONS, oracle_script, perturbed_script, script_engine
from agenttune.benchmarks.tau2.runner import run_tasks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="base")
    parser.add_argument("--domains", nargs="+", default=list(DOMAINS))
    parser.add_argument("--agents", nargs="+", default=["oracle"], choices=["oracle", *PERTURBATIONS])
    args = parser.parse_args()
    for domain, agent in ((d, a) for d in args.domains for a in args.agents):
        start = time.perf_counter()
        harness = Tau2Harness(domain)
        kinds = {**harness.tool_kinds(), **harness.user_tool_kinds()}
        tasks = harness.tasks(args.split)
        if agent != "oracle":
            tasks = [task for task in tasks if perturbed_script(task, agent, kinds) is not None]
        if not tasks:
            print(f"{domain} {agent}: changes no task")
            continue
        script = (
            oracle_script
            if agent == "oracle"
            else lambda task, a=agent, k=kinds: perturbed_script(task, a, k)
        )
        logs = run_tasks(
            lambda task, s=script: script_engine(s(task)),
            lambda d=domain: Tau2Harness(d),
            tasks,
            domain,
            agent,
            progress=True,
        )
        seconds = time.perf_counter() - start
        summary = summarize(logs)
        below = [log.task_id for log in logs if episode_reward(log) < 1.0]
        at_one = [log.task_id for log in logs if episode_reward(log) >= 1.0]
        print(
            f"{domain} {agent}: {len(tasks)} tasks, avg reward {summary['avg_reward']:.3f}, "
            f"{len(at_one)}/{len(tasks)} at 1.0, {seconds:.1f} s ({seconds / len(tasks):.2f} s/task)"
            + (f", below 1.0: {below}" if below and agent == "oracle" else "")
            + (f", at 1.0: {at_one}" if at_one and agent != "oracle" else "")
        )


if __name__ == "__main__":
    main()
