"""KTO on unpaired samples: TRL's KTOTrainer, labels from rewards (``>= algorithm.desirable_reward`` is good).

KTO estimates its KL reference point from mismatched prompt/completion pairs inside a batch, so TRL needs
``per_device_batch_size >= 2``.
"""

from __future__ import annotations

from dataclasses import dataclass

from agenttune.config import AlgorithmConfig
from agenttune.training.arguments import common_arguments, trl_config
from agenttune.training.data import label_by_reward
from agenttune.training.registry import Algorithm
from agenttune.training.spec import TrainerSpec


@dataclass
class KTOAlgorithmConfig(AlgorithmConfig):
    beta: float = 0.1  # preference temperature
    max_length: int = 512  # prompt + completion tokens kept
    desirable_reward: float = 0.5  # an unpaired row with reward at or above this is labelled good


def build_kto(spec: TrainerSpec):
    from trl import KTOConfig, KTOTrainer

    spec.refuse_rollouts()
    algorithm = spec.algorithm
    arguments = {
        **common_arguments(algorithm, spec.output_dir),
        "beta": algorithm.beta,
        "max_length": algorithm.max_length,
    }
    return KTOTrainer(
        model=spec.model,
        ref_model=spec.reference_model(),
        args=trl_config(KTOConfig, algorithm, arguments),
        train_dataset=label_by_reward(spec.data.require("unpaired", "kto"), algorithm.desirable_reward),
        eval_dataset=spec.data.eval,
        processing_class=spec.tokenizer,
        callbacks=spec.callbacks,
        peft_config=spec.peft_config,
    )


ALGORITHM = Algorithm(name="kto", config=KTOAlgorithmConfig, build=build_kto, data="unpaired")
