"""``toy_sums``: additions with an ``add`` tool (agenttune.agents.toy), the benchmark the workflow, self-heal and
multi-agent tests run on (tiny model as the policy, the calculator as the scripted oracle)."""

from __future__ import annotations

from agenttune.agents.toy import CalculatorHarness, calculator_policy, tasks
from agenttune.benchmarks.base import Benchmark, register
from agenttune.engines.scripted import ScriptedEngine
from agenttune.events.projections.evaluator import evaluator_input
from agenttune.rewards.episode import EpisodeReward
from agenttune.rewards.mix import RewardMix

TOY = ["benchmark.name=toy_sums", "model=tiny_random", "model.max_new_tokens=8", "strategy.max_turns=2"]


def correct(completions, answer, **kwargs) -> list[float]:
    """1.0 where the reply contains the answer."""
    return [float(gold in text) for text, gold in zip(completions, answer, strict=True)]


def reply_and_answer(log, task) -> dict:
    return {"completion": evaluator_input(log)["final_answer"] or "", "answer": task["answer"]}


def toy_reward() -> EpisodeReward:
    return EpisodeReward(RewardMix({"correct": (correct, 1.0)}), reply_and_answer)


@register("toy_sums")
class ToySums(Benchmark):
    """Train and eval tasks are disjoint additions."""

    def tasks(self, split, limit=None):
        n = self.limit(split, limit)
        return tasks(2 * n)[:n] if split == "train" else tasks(2 * n)[n:]

    def harness(self, task):
        return CalculatorHarness()

    def reward(self):
        return toy_reward()

    def teacher(self, task, tokenizer, kind="oracle"):
        if kind != "oracle":
            return super().teacher(task, tokenizer, kind)
        return ScriptedEngine(calculator_policy, tokenizer)
