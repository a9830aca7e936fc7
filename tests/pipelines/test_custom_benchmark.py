"""A benchmark written here, registered by name, runs through the generic evaluate and rl pipelines unchanged."""

from __future__ import annotations

import json
from statistics import mean

from agenttune.agents.toy import CalculatorHarness, tasks
from agenttune.benchmarks.base import Benchmark, register
from agenttune.engines.scripted import ScriptedEngine
from agenttune.events import load_jsonl
from agenttune.events.projections.evaluator import evaluator_input
from agenttune.rewards.episode import EpisodeReward
from agenttune.rewards.mix import RewardMix


def correct(completions, answer, **kwargs) -> list[float]:
    return [float(gold in text) for text, gold in zip(completions, answer, strict=True)]


def length(completions, **kwargs) -> list[float]:
    return [len(text) / 100 for text in completions]


def reply_and_answer(log, task) -> dict:
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
        from agenttune.agents.toy import calculator_policy

        return ScriptedEngine(calculator_policy, tokenizer)


ARITHMETIC = [
    "benchmark.name=arithmetic",
    "model=tiny_random",
    "model.max_new_tokens=8",
    "strategy.max_turns=2",
]


def test_a_new_benchmark_is_evaluated_by_the_generic_pipeline(run_pipeline):
    run_dir, summary = run_pipeline(["pipeline=evaluate", *ARITHMETIC, "benchmark.num_eval=3"])
    assert summary["status"] == "completed", summary["error"]
    assert summary["metrics"]["eval/episodes"] == 3
    assert len(load_jsonl(run_dir / "eventlogs" / "eval.jsonl")) == 3
    _, oracle = run_pipeline(
        ["pipeline=evaluate", *ARITHMETIC, "benchmark.num_eval=3", "harness.agent=oracle"], "oracle"
    )
    assert oracle["metrics"]["eval/accuracy"] == 1.0  # the benchmark's own scripted agent solves every task


def test_a_new_benchmark_is_trained_by_the_generic_rl_pipeline(run_pipeline):
    overrides = [
        "pipeline=rl", *ARITHMETIC, "benchmark.num_train=2", "benchmark.num_eval=2", "algorithm=grpo",
        "algorithm.max_steps=1", "algorithm.beta=0", "algorithm.num_generations=2", "algorithm.per_device_batch_size=1",
    ]  # fmt: skip
    run_dir, summary = run_pipeline(overrides)
    assert summary["status"] == "completed", summary["error"]
    metrics = summary["metrics"]
    assert metrics["eval_before/episodes"] == metrics["eval_after/episodes"] == 2
    assert metrics["train/global_step"] == 1
    (step,) = load_jsonl(run_dir / "eventlogs" / "train" / "step-0.jsonl")[:1]
    assert step.source == "arithmetic" and step.metadata["policy"]["step"] == 0
    logged = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert any("train/reward/correct" in entry for entry in logged)
