"""A checkpoint is written into a staging folder and renamed when complete: a save cut short leaves no partial
``checkpoint-<step>``, and resuming skips what is incomplete with a warning naming it."""

from __future__ import annotations

import logging

import pytest
from test_algorithms_on_cpu import preference_rows, tiny_algorithm

from agenttune.training import TrainingData, build_trainer, last_checkpoint, train
from agenttune.training.checkpoints import INCOMPLETE


class KilledWhileSaving(Exception):
    pass


def test_a_save_cut_short_leaves_the_last_complete_checkpoint(tiny_model, tokenizer, tmp_path, caplog):
    trainer = build_trainer(
        tiny_algorithm("dpo", save_steps=1),
        tiny_model,
        tokenizer,
        TrainingData(preferences=preference_rows()),
        str(tmp_path),
    )
    save_rng = (
        trainer._save_rng_state
    )  # written after the weights and the optimizer, before the trainer state

    def fail_at_step_2(output_dir):
        if trainer.state.global_step == 2:
            raise KilledWhileSaving(output_dir)
        save_rng(output_dir)

    trainer._save_rng_state = fail_at_step_2
    with pytest.raises(KilledWhileSaving, match=INCOMPLETE):
        train(trainer)
    assert sorted(p.name for p in tmp_path.glob("checkpoint-*")) == ["checkpoint-1"]
    partial = tmp_path / INCOMPLETE / "checkpoint-2"
    assert (partial / "optimizer.pt").exists() and not (partial / "trainer_state.json").exists()
    with caplog.at_level(logging.WARNING):
        assert last_checkpoint(tmp_path) == str(tmp_path / "checkpoint-1")
    assert f"skipping {partial}" in caplog.text


def test_resume_skips_an_incomplete_checkpoint_naming_it(tmp_path, caplog):
    complete = tmp_path / "checkpoint-2"
    complete.mkdir()
    (complete / "trainer_state.json").write_text('{"global_step": 2}')
    for name, content in (("checkpoint-3", None), ("checkpoint-4", '{"global_st')):
        (tmp_path / name).mkdir()
        (tmp_path / name / "model.safetensors").write_bytes(b"partial")
        if content is not None:
            (tmp_path / name / "trainer_state.json").write_text(content)
    with caplog.at_level(logging.WARNING):
        assert last_checkpoint(tmp_path) == str(complete)
    assert (
        f"skipping the incomplete checkpoint {tmp_path / 'checkpoint-4'} (unreadable trainer_state.json)"
        in caplog.text
    )
    assert (
        f"skipping the incomplete checkpoint {tmp_path / 'checkpoint-3'} (no trainer_state.json"
        in caplog.text
    )
