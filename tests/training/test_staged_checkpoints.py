"""A checkpoint is written into a staging folder and renamed when complete: a save cut short leaves no partial
``checkpoint-<step>``, and resuming skips what is incomplete with a warning naming it."""

from __future__ import annotations

import logging

import pytest
from test_algorithms_on_cpu import preference_rows, tiny_algorithm

from agenttune.training import TrainingData, build_trainer, last_checkpoint, train
from agenttune.training.checkpoints import INCOMPLETE, link_earlier_checkpoints


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


def test_a_resumed_run_links_in_the_checkpoints_up_to_the_one_it_continues(tmp_path):
    killed, resumed = tmp_path / "killed" / "checkpoints", tmp_path / "resumed" / "checkpoints"
    for step, state in ((1, '{"global_step": 1}'), (2, '{"global_step": 2}'), (3, '{"global_st'), (4, None)):
        folder = killed / f"checkpoint-{step}"
        folder.mkdir(parents=True)
        (folder / "adapter_model.safetensors").write_bytes(bytes([step]))
        if state is not None:
            (folder / "trainer_state.json").write_text(state)
    resumed.mkdir(parents=True)

    added = link_earlier_checkpoints(killed / "checkpoint-2", resumed)
    assert [p.name for p in added] == ["checkpoint-1", "checkpoint-2"]  # not the incomplete 3, nor 4 after it
    linked = resumed / "checkpoint-2" / "adapter_model.safetensors"
    assert linked.read_bytes() == b"\x02"
    assert linked.stat().st_ino == (killed / "checkpoint-2" / "adapter_model.safetensors").stat().st_ino
    assert link_earlier_checkpoints(killed / "checkpoint-2", resumed) == []  # what is there stays
    assert link_earlier_checkpoints(resumed / "checkpoint-2", resumed) == []  # a run's own checkpoint
