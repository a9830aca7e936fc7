"""SFT with per-segment token weights: the weighted SFT trainer of ``agenttune/training/weighted_sft.py``.

``data.sft`` is either weighted rows (``input_ids``, ``weights``: already projected) or a Dataset in the events
layout (``agenttune.events.io.to_dataset(logs)``), projected here with ``algorithm.segment_weights``.
``algorithm.trl`` goes to its SFTConfig.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agenttune.config import AlgorithmConfig
from agenttune.events.projections.sft import DEFAULT_WEIGHTS
from agenttune.training.arguments import common_arguments, trl_config
from agenttune.training.registry import Algorithm
from agenttune.training.spec import TrainerSpec


@dataclass
class SFTAlgorithmConfig(AlgorithmConfig):
    max_length: int = 512  # tokens of a row kept
    # per-token loss weight by segment kind, and the floor on each assistant turn's first token (turn_start)
    segment_weights: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_WEIGHTS))


def build_sft(spec: TrainerSpec):
    from trl import SFTConfig

    from agenttune.training.weighted_sft import build_weighted_sft_trainer

    spec.refuse_rollouts()
    algorithm = spec.algorithm
    dataset = spec.data.require("sft", "sft")
    projected_here = "events" in dataset.column_names
    arguments = {**common_arguments(algorithm, spec.output_dir), "max_length": algorithm.max_length}
    return build_weighted_sft_trainer(
        model=spec.model,
        tokenizer=spec.tokenizer,
        dataset=dataset,
        args=trl_config(SFTConfig, algorithm, arguments),
        segment_weights=dict(algorithm.segment_weights) if projected_here else None,
        eval_dataset=spec.data.eval,
        callbacks=spec.callbacks,
        peft_config=spec.peft_config,
    )


ALGORITHM = Algorithm(name="sft", config=SFTAlgorithmConfig, build=build_sft, data="sft")
