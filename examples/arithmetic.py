"""A new benchmark: additions with an ``add`` tool, registered by name and run by every generic pipeline.

A benchmark subclasses :class:`agenttune.benchmarks.base.Benchmark` (its docstring lists every method) and registers
itself; ``conf/benchmark/arithmetic.yaml`` names it and sets ``benchmark.module`` to this module, which the
registry imports. What it implements decides which pipelines take it (``agenttune/pipelines/fit.py``): tasks of
both splits and a harness (``evaluate``), a reward (``rl``), a scripted teacher (``distill``, the warm start,
``harness.agent=oracle``).
"""

from __future__ import annotations

from statistics import mean

from agenttune.agents.toy import CalculatorHarness, calculator_policy, tasks
from agenttune.benchmarks.base import Benchmark, register
from agenttune.engines.scripted import ScriptedEngine
from agenttune.events.projections.evaluator import evaluator_input
from agenttune.rewards.episode import EpisodeReward
from agenttune.rewards.mix import RewardMix


def correct(completions, answer, **kwargs) -> list[float]:
    """1.0 where the reply contains the answer."""
    return [float(gold in text) for text, gold in zip(completions, answer, strict=True)]


def length(completions, **kwargs) -> list[float]:
    return [len(text) / 100 for text in completions]


def reply_and_answer(log, task) -> dict:
    """The columns the reward functions read: the episode's final answer and the task's."""
    return {"completion": evaluator_input(log)["final_answer"], "answer": task["answer"]}


@register("arithmetic")
class Arithmetic(Benchmark):
    """Additions with an ``add`` tool; train and eval tasks are disjoint."""

    def tasks(self, split, limit=None):
        n = self.limit(split, limit)
        return tasks(2 * n)[:n] if split == "train" else tasks(2 * n)[n:]

    def harness(self, task):
        return CalculatorHarness()

    def reward(self):
        return EpisodeReward(
            RewardMix({"correct": (correct, 1.0), "length": (length, 0.1)}), reply_and_answer
        )

    def metrics(self, logs, tasks):
        return {"accuracy": mean(log.rewards().get("harness", 0.0) for log in logs), "episodes": len(logs)}

    def teacher(self, task, tokenizer, kind="oracle"):
        return ScriptedEngine(calculator_policy, tokenizer)
