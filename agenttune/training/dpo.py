"""DPO on preference pairs: TRL's DPOTrainer with ``loss_type=algorithm.preference_loss`` and ``beta``."""

from __future__ import annotations

from agenttune.training.arguments import common_arguments
from agenttune.training.spec import TrainerSpec


def build_dpo(spec: TrainerSpec, loss_type: str | None = None):
    """A DPOTrainer on ``data.preferences``; ``loss_type`` overrides ``algorithm.preference_loss`` (bco uses it)."""
    from trl import DPOConfig, DPOTrainer

    spec.refuse_rollouts()
    algorithm = spec.algorithm
    args = DPOConfig(
        **common_arguments(algorithm, spec.output_dir),
        loss_type=[loss_type or algorithm.preference_loss],
        beta=algorithm.beta,
        max_length=algorithm.max_length,
    )
    return DPOTrainer(
        model=spec.model,
        ref_model=spec.reference_model(),
        args=args,
        train_dataset=spec.data.require("preferences", algorithm.name),
        eval_dataset=spec.data.eval,
        processing_class=spec.tokenizer,
        callbacks=spec.callbacks,
        peft_config=spec.peft_config,
    )
