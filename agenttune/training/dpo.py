"""DPO on preference pairs: TRL's DPOTrainer with ``loss_type=algorithm.preference_loss`` and ``beta``."""

from __future__ import annotations

from dataclasses import dataclass

from agenttune.config import AlgorithmConfig
from agenttune.training.arguments import common_arguments, trl_config
from agenttune.training.registry import Algorithm
from agenttune.training.spec import TrainerSpec


@dataclass
class DPOAlgorithmConfig(AlgorithmConfig):
    beta: float = 0.1  # preference temperature
    preference_loss: str = "sigmoid"  # DPOConfig.loss_type: sigmoid | ipo | hinge | bco_pair | ...
    max_length: int = 512  # prompt + completion tokens kept


def build_dpo(spec: TrainerSpec):
    return preference_trainer(spec, spec.algorithm.preference_loss)


def preference_trainer(spec: TrainerSpec, loss_type: str):
    """A DPOTrainer with ``loss_type`` on ``data.preferences`` (bco trains on pairs with ``bco_pair``)."""
    from trl import DPOConfig, DPOTrainer

    spec.refuse_rollouts()
    algorithm = spec.algorithm
    arguments = {
        **common_arguments(algorithm, spec.output_dir),
        "loss_type": [loss_type],
        "beta": algorithm.beta,
        "max_length": algorithm.max_length,
    }
    return DPOTrainer(
        model=spec.model,
        ref_model=spec.reference_model(),
        args=trl_config(DPOConfig, algorithm, arguments),
        train_dataset=spec.data.require("preferences", algorithm.name),
        eval_dataset=spec.data.eval,
        processing_class=spec.tokenizer,
        callbacks=spec.callbacks,
        peft_config=spec.peft_config,
    )


ALGORITHM = Algorithm(name="dpo", config=DPOAlgorithmConfig, build=build_dpo, data="preferences")
