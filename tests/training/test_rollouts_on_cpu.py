"""GRPO's rollouts come from the episode loop: what the loss reads is what the EventLog holds, training and evaluation
render the same prompt ids, the strategy shapes training episodes, and a failing episode fails alone."""

from __future__ import annotations

import itertools

import pytest
import torch
from calculator_rollouts import (
    SAMPLING,
    FollowingScriptedEngine,
    calculator_reward,
    calculator_rollouts,
    correct,
    length,
)
from test_algorithms_on_cpu import tiny_algorithm

from agenttune.agents import ReAct, run_episodes
from agenttune.agents.strategies import Reflexion
from agenttune.agents.toy import CalculatorHarness, calculator_policy, tasks
from agenttune.engines.transformers_engine import TransformersEngine
from agenttune.events import load_jsonl
from agenttune.events.projections.rl import rl_row
from agenttune.events.schema import EventKind
from agenttune.training import TrainingData, build_trainer, train
from agenttune.training.rollouts import episode_metrics


def sometimes_wrong_policy():
    """The calculator policy, answering wrong on every other episode (so a GRPO group has reward variance)."""
    answers = itertools.count()

    def policy(conversation, tools):
        reply = calculator_policy(conversation, tools)
        if "tool_calls" not in reply and next(answers) % 2:
            return {"content": "The answer is 0."}
        return reply

    return policy


def unpadded(ids: torch.Tensor, mask: torch.Tensor) -> list[int]:
    return ids[mask.bool()].tolist()


def test_grpo_loss_reads_the_eventlog_ids_and_generated_spans_on_cpu(tiny_model, tokenizer, tmp_path):
    log_dir = tmp_path / "eventlogs" / "train"
    engine = lambda model: FollowingScriptedEngine(sometimes_wrong_policy(), tokenizer)  # noqa: E731
    rollouts = calculator_rollouts(tokenizer, make_engine=engine, log_dir=log_dir)
    trainer = build_trainer(
        tiny_algorithm("grpo", max_steps=1, beta=0.0), tiny_model, tokenizer, TrainingData(), str(tmp_path),
        rollouts=rollouts,
    )  # fmt: skip
    # what one training step's loss reads: TRL's batch for 2 prompts x num_generations 2 (the sampler's repeats)
    trainer.model.train()
    rows = [trainer.train_dataset[i] for i in (0, 0, 1, 1)]
    consumed = [trainer._generate_and_score_completions(rows)]

    logs = load_jsonl(log_dir / "step-0.jsonl")
    (batch,) = consumed
    assert len(logs) == batch["completion_ids"].shape[0] == 4  # 2 prompts x num_generations 2
    for i, log in enumerate(logs):
        row = rl_row(log)
        completion_mask = batch["completion_mask"][i]
        assert unpadded(batch["prompt_ids"][i], batch["prompt_mask"][i]) == row["prompt_ids"]
        assert unpadded(batch["completion_ids"][i], completion_mask) == row["completion_ids"]
        loss_mask = (batch["tool_mask"][i] * completion_mask)[completion_mask.bool()].tolist()
        assert loss_mask == row["tool_mask"]
        assert 0 in loss_mask and loss_mask[0] == loss_mask[-1] == 1  # the tool result is masked out
        start = len(row["prompt_ids"])
        spans = [(lo - start, hi - start) for lo, hi in log.generated_spans]
        assert [j for j, m in enumerate(loss_mask) if m] == [j for lo, hi in spans for j in range(lo, hi)]
        kinds = [e.kind for e in log.events]
        assert kinds.count(EventKind.TOOL_CALL) == 1 and kinds.count(EventKind.TOOL_RESULT) == 1
        assert log.metadata["policy"]["step"] == 0 and len(log.metadata["policy"]["digest"]) == 16
        assert log.metadata["sampling"] == SAMPLING
    assert len({log.rewards("episode")["total"] for log in logs}) > 1  # right and wrong answers


def test_training_and_evaluation_render_a_question_to_the_same_prompt_ids_on_cpu(tiny_model, tokenizer):
    rollouts = calculator_rollouts(tokenizer, n=2)
    batch = rollouts.sample(rollouts.prompts, tiny_model, step=0)
    engine = TransformersEngine(tiny_model, tokenizer, **SAMPLING)
    evaluated = run_episodes(engine, CalculatorHarness, ReAct(max_turns=3), tasks(2))
    assert batch.prompt_ids == [rl_row(log)["prompt_ids"] for log in evaluated]


def test_the_engine_serves_the_live_model_object_on_cpu(tiny_model, tokenizer):
    rollouts = calculator_rollouts(tokenizer, n=1)
    rollouts.sample(rollouts.prompts, tiny_model, step=0)
    assert rollouts.engine(tiny_model).model is tiny_model


def test_strategy_changes_training_rollouts_on_cpu(tokenizer):
    """Reflexion retries a failed answer after a reflection; ReAct stops: the training episodes differ."""

    def wrong_first(conversation, tools):
        if sum(m["role"] == "assistant" for m in conversation) == 0:
            return {"content": "The answer is 0."}
        return {"content": "Let me think again. The answer is 3."}

    def sample(strategy):
        engine = lambda model: FollowingScriptedEngine(wrong_first, tokenizer)  # noqa: E731
        rollouts = calculator_rollouts(tokenizer, make_engine=engine, strategy=strategy, n=2)
        return rollouts.sample(rollouts.prompts[1:], torch.nn.Linear(1, 1), step=0)

    react, reflexion = sample(ReAct(max_turns=4)), sample(Reflexion(max_turns=4, max_reflections=1))
    assert react.rewards == [0.0 + 0.1 * len("The answer is 0.") / 100]
    assert reflexion.rewards[0] > react.rewards[0]  # the retry answered right
    assert any(e.kind == EventKind.MEMORY_OP for e in reflexion.logs[0].events)
    assert len(reflexion.completion_ids[0]) > len(react.completion_ids[0])


class FailingOnTask1(CalculatorHarness):
    def step(self, action):
        if action.kind == EventKind.TOOL_CALL and self.task["id"] == "t1":
            raise RuntimeError("calculator exploded")
        return super().step(action)


def test_a_tool_or_reward_exception_fails_its_episode_not_the_step_on_cpu(tiny_model, tokenizer, tmp_path):
    def picky(completions, answer, **kwargs):
        if any(gold == "5" for gold in answer):
            raise ValueError("cannot score task t2")
        return correct(completions, answer)

    engine = lambda model: FollowingScriptedEngine(calculator_policy, tokenizer)  # noqa: E731
    reward = calculator_reward(correct=(picky, 1.0), length=(length, 0.1))
    rollouts = calculator_rollouts(tokenizer, make_engine=engine, reward=reward, harness=FailingOnTask1, n=4)
    batch = rollouts.sample(rollouts.prompts, tiny_model, step=0)
    by_task = {log.task_id: log for log in batch.logs}
    assert by_task["t1"].metadata["termination"] == "error"
    assert any(e.kind == EventKind.ERROR and e.payload.source == "reward" for e in by_task["t2"].events)
    assert by_task["t2"].rewards("episode")["total"] == 0.0  # the mix's failure value
    assert by_task["t0"].rewards("episode")["correct"] == 1.0 == by_task["t3"].rewards("episode")["correct"]
    assert episode_metrics(batch.logs)["episodes/failed"] == 2.0

    trainer = build_trainer(
        tiny_algorithm("grpo", beta=0.0),
        tiny_model,
        tokenizer,
        TrainingData(),
        str(tmp_path),
        rollouts=rollouts,
    )
    train(trainer)
    assert trainer.state.global_step == 2


def test_a_prompt_that_opens_no_task_is_refused(tokenizer):
    rollouts = calculator_rollouts(tokenizer, n=1)
    with pytest.raises(KeyError, match="opens no training task"):
        rollouts.sample([[{"role": "user", "content": "hello"}]], torch.nn.Linear(1, 1), step=0)
