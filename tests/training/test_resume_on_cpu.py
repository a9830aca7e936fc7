"""Checkpoints every step, then a new trainer with ``max_steps=3`` resumes at step 2 and stops at 3; the oldest
checkpoint is removed (``save_total_limit``)."""

from __future__ import annotations

import pytest
from calculator_rollouts import calculator_rollouts
from test_algorithms_on_cpu import preference_rows, tiny_algorithm

from agenttune.training import MetricsCallback, TrainingData, build_trainer, last_checkpoint, train

CASES = {
    "dpo": lambda tokenizer: (TrainingData(preferences=preference_rows()), {}),
    "ppo": lambda tokenizer: (TrainingData(), {"rollouts": calculator_rollouts(tokenizer)}),
}


@pytest.mark.parametrize("name", list(CASES))
def test_resume_continues_at_the_saved_step_on_cpu(name, tiny_model_config, cache_dir, tokenizer, tmp_path):
    from agenttune.models import load_model

    data, kwargs = CASES[name](tokenizer)
    assert last_checkpoint(tmp_path) is None
    first = build_trainer(
        tiny_algorithm(name, save_steps=1),
        load_model(tiny_model_config, cache_dir),
        tokenizer,
        data,
        str(tmp_path),
        **kwargs,
    )
    train(first)
    checkpoint = last_checkpoint(tmp_path)
    assert checkpoint is not None and checkpoint.endswith("checkpoint-2")

    second = build_trainer(
        tiny_algorithm(name, save_steps=1, max_steps=3),
        load_model(tiny_model_config, cache_dir),
        tokenizer,
        data,
        str(tmp_path),
        **kwargs,
    )
    train(second, resume_from=checkpoint)
    assert second.state.global_step == 3
    assert last_checkpoint(tmp_path).endswith("checkpoint-3")
    # save_total_limit (default 2) keeps the newest checkpoints only: a run's disk use stays bounded
    assert sorted(p.name for p in tmp_path.glob("checkpoint-*")) == ["checkpoint-2", "checkpoint-3"]
    second.save_model(str(tmp_path / "final"))
    assert (tmp_path / "final" / "config.json").exists()


def test_a_run_resumed_at_its_last_step_logs_no_train_loss(tiny_model_config, cache_dir, tokenizer, tmp_path):
    from agenttune.models import load_model

    def run(resume_from=None):
        logged = []
        trainer = build_trainer(
            tiny_algorithm("dpo", save_steps=1),
            load_model(tiny_model_config, cache_dir),
            tokenizer,
            TrainingData(preferences=preference_rows()),
            str(tmp_path),
            callbacks=[MetricsCallback(lambda metrics, step: logged.append(metrics))],
        )
        train(trainer, resume_from=resume_from)
        return logged[-1]  # the Trainer's closing log

    closing = run()
    assert "train_runtime" in closing and closing["train_loss"] > 0  # 2 steps trained
    closing = run(resume_from=last_checkpoint(tmp_path))  # at step 2 of 2: nothing left to train
    assert "train_runtime" in closing and "train_loss" not in closing
