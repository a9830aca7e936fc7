"""DPO on preference pairs: TRL's DPOTrainer with ``loss_type=algorithm.preference_loss`` and ``beta``, its forwards
encoding each pair's prompt once (:mod:`agenttune.training.shared_prompt_dpo`)."""

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
    # each pair's prompt is encoded once, its chosen and rejected completions packed behind it
    # (training/shared_prompt_dpo.py); false: TRL's forward, one full row per completion
    share_prompt: bool = True


def build_dpo(spec: TrainerSpec):
    return preference_trainer(spec, spec.algorithm.preference_loss)


def preference_trainer(spec: TrainerSpec, loss_type: str):
    """A DPOTrainer with ``loss_type`` on ``data.preferences`` (bco trains on pairs with ``bco_pair``)."""
    from trl import DPOConfig, DPOTrainer

    from agenttune.training.shared_prompt_dpo import SharedPromptDPOTrainer

    spec.refuse_rollouts()
    algorithm = spec.algorithm
    arguments = {
        **common_arguments(algorithm, spec.output_dir),
        "loss_type": [loss_type],
        "beta": algorithm.beta,
        "max_length": algorithm.max_length,
    }
    trainer_class = SharedPromptDPOTrainer if algorithm.share_prompt else DPOTrainer
    return trainer_class(
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
