"""The smoke experiment trains the tiny model two steps with each of the seven algorithms, from real ADP logs (the
on-policy ones rewrite recorded turns through the episode loop, each step's episodes kept in eventlogs/train/)."""

from __future__ import annotations

import dataclasses

import pytest

from agenttune.training import algorithm_info, algorithms

SMALL = ["benchmark.num_train=2", "benchmark.max_prompt_turns=1"]


def small(algorithm: str) -> list[str]:
    """SMALL plus the sizes ``algorithm``'s schema has."""
    fields = {field.name for field in dataclasses.fields(algorithm_info(algorithm).config)}
    sizes = {"max_completion_length": 8, "num_generations": 2, "max_length": 512}
    return [*SMALL, *(f"algorithm.{key}={value}" for key, value in sizes.items() if key in fields)]


@pytest.mark.parametrize("algorithm", list(algorithms()))
def test_smoke_trains_two_steps_and_changes_parameters(run_pipeline, algorithm):
    run_dir, summary = run_pipeline(
        ["+experiment=smoke", "model=tiny_random", f"algorithm={algorithm}", *small(algorithm)]
    )
    assert summary["status"] == "completed", summary["error"]
    metrics = summary["metrics"]
    assert metrics["train/global_step"] == 2
    assert metrics["train/params_changed_share"] == 1.0
    assert (run_dir / "checkpoints" / "final" / "config.json").exists()
    assert (run_dir / "eventlogs" / "train_source.jsonl").exists()
    rollouts = sorted(p.name for p in (run_dir / "eventlogs").glob("train/step-*.jsonl"))
    assert rollouts == (["step-0.jsonl", "step-1.jsonl"] if algorithm_info(algorithm).on_policy else [])
    steps = [line for line in (run_dir / "metrics.jsonl").read_text().splitlines() if '"train/' in line]
    assert len(steps) >= 2, "one metrics.jsonl record per logged step"


def test_qlora_dpo_smoke_trains_the_adapters(run_pipeline):
    """`model.quantization=nf4`: 4-bit NF4 base with LoRA r16 on q/k/v/o/gate/up/down, 2 DPO steps."""
    pytest.importorskip("bitsandbytes")
    _, summary = run_pipeline(
        ["+experiment=smoke", "model=tiny_random", "algorithm=dpo", "model.quantization=nf4", *small("dpo")]
    )
    assert summary["status"] == "completed", summary["error"]
    assert summary["metrics"]["train/global_step"] == 2
    assert summary["metrics"]["train/params_changed_share"] == 1.0
