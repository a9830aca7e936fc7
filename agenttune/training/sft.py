"""SFT with per-segment token weights: the weighted SFT trainer of ``agenttune/training/weighted_sft.py``.

``data.sft`` is either weighted rows (``input_ids``, ``weights``: already projected) or a Dataset in the events
layout (``agenttune.events.io.to_dataset(logs)``), projected here with ``algorithm.segment_weights``.
"""

from __future__ import annotations

from agenttune.training.arguments import common_arguments
from agenttune.training.spec import TrainerSpec


def build_sft(spec: TrainerSpec):
    from trl import SFTConfig

    from agenttune.training.weighted_sft import build_weighted_sft_trainer

    spec.refuse_rollouts()
    algorithm = spec.algorithm
    dataset = spec.data.require("sft", "sft")
    projected_here = "events" in dataset.column_names
    return build_weighted_sft_trainer(
        model=spec.model,
        tokenizer=spec.tokenizer,
        dataset=dataset,
        args=SFTConfig(**common_arguments(algorithm, spec.output_dir), max_length=algorithm.max_length),
        segment_weights=dict(algorithm.segment_weights) if projected_here else None,
        eval_dataset=spec.data.eval,
        callbacks=spec.callbacks,
        peft_config=spec.peft_config,
    )
