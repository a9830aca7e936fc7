"""A pipeline child that stalls mid-run, for the SIGKILL tests: ``python stalling_benchmark.py MARKS STALL_AT ARGS``.

Registers the ``stalling`` benchmark (the calculator tasks of :mod:`agenttune.agents.toy`, one domain ``calc`` for
the self-evolution method) and runs ``train.py ARGS``. Every episode that finishes is named in ``MARKS/finished``
(fsynced) by the benchmark's ``record`` hook, which the episode loop calls as the episode ends, just before the
pipeline's writer. The ``STALL_AT``-th harness step of the process writes ``MARKS/stalled`` and blocks for good,
so the pipeline is caught mid-phase, with some episodes finished and others in flight, when the test kills it.
"""

from __future__ import annotations

import os
import runpy
import sys
import time
from pathlib import Path
from statistics import mean

from agenttune.agents.toy import CalculatorHarness, calculator_policy, tasks
from agenttune.benchmarks.base import Benchmark, Domain, register
from agenttune.config import repo_root
from agenttune.engines.scripted import ScriptedEngine
from agenttune.events.projections.evaluator import evaluator_input
from agenttune.rewards.episode import EpisodeReward
from agenttune.rewards.mix import RewardMix

MARKS = Path(sys.argv[1]) if __name__ == "__main__" else Path(os.devnull)
STALL_AT = int(sys.argv[2]) if __name__ == "__main__" else 0
steps = 0


def mark(name: str, line: str) -> None:
    with open(MARKS / name, "a") as handle:
        handle.write(line + "\n")
        handle.flush()
        os.fsync(handle.fileno())


class StallingHarness(CalculatorHarness):
    def step(self, action):
        global steps
        steps += 1
        if steps == STALL_AT:
            mark("stalled", str(steps))
            while True:
                time.sleep(60)
        return super().step(action)


def answered(completions, answer, **kwargs) -> list[float]:
    return [float(gold in text) for text, gold in zip(completions, answer, strict=True)]


SPLIT_SIZE = 8  # calculator tasks in each split


@register("stalling")
class Stalling(Benchmark):
    domains = ["calc"]

    def tasks(self, split, limit=None):
        pool = tasks(2 * SPLIT_SIZE)
        split_tasks = pool[:SPLIT_SIZE] if split == "train" else pool[SPLIT_SIZE:]
        return split_tasks[: self.limit(split, limit) or SPLIT_SIZE]

    def harness(self, task):
        return StallingHarness()

    def reward(self):
        def columns(log, task):
            return {"completion": evaluator_input(log)["final_answer"], "answer": task["answer"]}

        return EpisodeReward(RewardMix({"answered": (answered, 1.0)}), columns)

    def metrics(self, logs, tasks):
        return {"accuracy": mean(log.rewards().get("harness", 0.0) for log in logs)}

    def teacher(self, task, tokenizer, kind="oracle"):
        return ScriptedEngine(calculator_policy, tokenizer)

    def record(self, log, harness):
        mark("finished", log.id)
        return log

    def domain(self, name):
        return Domain(
            name=name,
            harness=StallingHarness(),
            tool_kinds={"add": "read"},
            rules={},
            collection_agents={"oracle": lambda task: self.teacher(task, None)},
            compare=lambda before, after: {"improved": 0, "regressed": 0},
            successful=lambda log: log.rewards().get("harness", 0.0) >= 1.0,
        )

    def domain_of(self, task):
        return "calc"

    def domain_tasks(self, domain, split, limit=None):
        return self.tasks(split, limit)

    def domain_harness(self, domain, max_steps=None):
        return StallingHarness()


if __name__ == "__main__":
    sys.argv = [str(Path(repo_root()) / "train.py"), *sys.argv[3:]]
    runpy.run_path(sys.argv[0], run_name="__main__")
