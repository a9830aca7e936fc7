"""Training rollouts over the toy calculator harness, shared by the training tests."""

from __future__ import annotations

from typing import Any

from agenttune.agents import ReAct
from agenttune.agents.toy import CalculatorHarness, tasks
from agenttune.engines.scripted import ScriptedEngine
from agenttune.engines.transformers_engine import TransformersEngine
from agenttune.events.projections.evaluator import evaluator_input
from agenttune.rewards.episode import EpisodeReward
from agenttune.rewards.mix import RewardMix
from agenttune.training.rollouts import EpisodeRollouts

SAMPLING = {"temperature": 1.0, "top_p": 1.0, "max_new_tokens": 8}


def correct(completions, answer, **kwargs) -> list[float]:
    return [float(gold in text) for text, gold in zip(completions, answer, strict=True)]


def length(completions, **kwargs) -> list[float]:
    """Longer replies score higher: a varied signal even from the tiny random policy."""
    return [len(text) / 100 for text in completions]


def columns(log, task) -> dict[str, Any]:
    return {"completion": evaluator_input(log)["final_answer"], "answer": task["answer"]}


def calculator_reward(**components) -> EpisodeReward:
    mix = components or {"correct": (correct, 1.0), "length": (length, 0.1)}
    return EpisodeReward(RewardMix(mix), columns)


class FollowingScriptedEngine(ScriptedEngine):
    """A scripted policy has no weights: following the trained model is a no-op."""

    def sync_weights(self, model) -> None:
        pass


def tiny_engine(tokenizer):
    return lambda model: TransformersEngine(model, tokenizer, **SAMPLING)


def calculator_rollouts(
    tokenizer, make_engine=None, strategy=None, reward=None, log_dir=None, n=4, harness=None
):
    return EpisodeRollouts(
        tasks(n),
        lambda task: (harness or CalculatorHarness)(),
        strategy or ReAct(max_turns=3),
        reward or calculator_reward(),
        make_engine or tiny_engine(tokenizer),
        SAMPLING,
        log_dir=log_dir,
        source="calculator",
    )
