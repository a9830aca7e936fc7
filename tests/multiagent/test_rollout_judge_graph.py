"""Rollout/judge graphs: routed policies and a judge panel (scripted fakes) compiled into GRPO's rollout function."""

from __future__ import annotations

import re

import pytest
import torch

from agenttune.agents.strategies import ReAct
from agenttune.agents.toy import CalculatorHarness, calculator_policy, tasks
from agenttune.config import ModelConfig
from agenttune.engines import build_engine
from agenttune.engines.scripted import ScriptedEngine
from agenttune.multiagent.graph import (
    JudgeNode,
    PolicyNode,
    RolloutJudgeGraph,
    round_robin,
    trajectory_scores,
)
from agenttune.rewards.judge import LLMJudge
from agenttune.training import TrainingData, algorithm_config, build_trainer, train
from tests.conftest import compose_config
from tests.workflows.toy_benchmark import toy_reward

RUBRIC = ("Reference: {reference}\nAnswer: {answer}\nGrade it.",)


def grader(score):
    """A scripted judge engine: reads the rubric's reference and answer, replies with ``SCORE: score(...)``."""

    def reply(conversation, tools):
        prompt = conversation[-1]["content"]
        reference = re.search(r"Reference: (.*)", prompt).group(1)
        answer = re.search(r"Answer: (.*)", prompt).group(1)
        return {"content": f"Reasons. SCORE: {score(answer, reference):.3f}"}

    return ScriptedEngine(reply)


def judges():
    exact = LLMJudge(grader(lambda answer, reference: float(reference in answer)), RUBRIC, name="exact")
    brief = LLMJudge(grader(lambda answer, reference: 1 / (1 + len(answer) / 40)), RUBRIC, name="brief")
    columns = lambda log, task: (task["question"], task["answer"])  # noqa: E731
    return [JudgeNode("exact", exact, columns), JudgeNode("brief", brief, columns)]


def policies(tokenizer, live_engine):
    reward = toy_reward()

    def rollouts(make_engine, sampling):
        from agenttune.training.rollouts import EpisodeRollouts

        return EpisodeRollouts(
            tasks(2), lambda task: CalculatorHarness(), ReAct(max_turns=2), reward, make_engine, sampling
        )

    return [
        PolicyNode("sampler", rollouts(live_engine, {"temperature": 1.0})),
        PolicyNode(
            "calculator",
            rollouts(lambda model: ScriptedEngine(calculator_policy, tokenizer), {"scripted": True}),
        ),
    ]


@pytest.fixture
def graph(tokenizer):
    config = ModelConfig(name="tiny_random", path="tiny_random", max_new_tokens=8, temperature=1.0)
    live = lambda model: build_engine(config, model, tokenizer)  # noqa: E731
    return RolloutJudgeGraph(
        policies(tokenizer, live), judges(), router=round_robin(["sampler", "calculator"])
    )


def test_a_batch_is_routed_rolled_out_and_judged_with_every_event_attributed(graph, tiny_model):
    prompts = [row["prompt"] for row in graph.dataset()]
    batch = graph.sample(prompts, tiny_model, step=1)  # step 1 -> the second policy
    assert graph.routed == ["calculator"]
    for log in batch.logs:
        assert log.metadata["agent"] == "calculator"
        assert all(e.metadata.get("agent") for e in log.events)
        rewards = log.rewards()
        assert rewards["judge/exact"] == 1.0 and rewards["total"] == pytest.approx(
            (rewards["judge/exact"] + rewards["judge/brief"]) / 2
        )
        judged = {e.metadata["agent"] for e in log.events if e.kind.value == "reward" and e.actor == "judge"}
        assert {"exact", "brief"} <= judged
    per_completion = [fn([None] * len(batch.logs), eventlog=batch.logs) for fn in graph.reward_functions()]
    assert [len(scores) for scores in per_completion] == [2, 2] and per_completion[0] == [1.0, 1.0]
    scores = trajectory_scores(batch.logs)
    assert scores["calculator"]["tool_argument_accuracy"] == 1.0 and scores["calculator"]["loop_rate"] == 0.0


def test_two_routed_policies_and_two_judges_train_grpo_two_steps(graph, tiny_model, tokenizer, tmp_path):
    cfg = compose_config(
        [
            "algorithm=grpo",
            "algorithm.max_steps=2",
            "algorithm.beta=0",
            "algorithm.num_generations=2",
            "algorithm.per_device_batch_size=2",
            "algorithm.save_steps=100",
        ]  # fmt: skip
    )
    before = {name: p.detach().clone() for name, p in tiny_model.named_parameters()}
    trainer = build_trainer(
        algorithm_config(cfg.algorithm), tiny_model, tokenizer, TrainingData(), str(tmp_path), rollouts=graph
    )
    train(trainer)
    assert trainer.state.global_step == 2 and graph.routed == ["sampler", "calculator"]
    changed = [name for name, p in tiny_model.named_parameters() if not torch.equal(before[name], p.detach())]
    assert (
        changed
    )  # the scripted policy's batch has a reward spread across its group, so the loss moved weights
