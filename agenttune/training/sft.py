"""SFT with per-segment token weights: the weighted SFT trainer of ``agenttune/training/weighted_sft.py``."""

from __future__ import annotations

from agenttune.training.arguments import common_arguments
from agenttune.training.spec import TrainerSpec


def build_sft(spec: TrainerSpec):
    from trl import SFTConfig

    from agenttune.training.weighted_sft import build_weighted_sft_trainer

    spec.refuse_tools()
    algorithm = spec.algorithm
    return build_weighted_sft_trainer(
        model=spec.model,
        tokenizer=spec.tokenizer,
        dataset=spec.data.require("sft", "sft"),
        args=SFTConfig(**common_arguments(algorithm, spec.output_dir), max_length=algorithm.max_length),
        segment_weights=dict(algorithm.segment_weights),
        eval_dataset=spec.data.eval,
        callbacks=spec.callbacks,
        peft_config=spec.peft_config,
    )
