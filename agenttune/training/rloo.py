"""RLOO: TRL's RLOOTrainer (leave-one-out baseline over ``num_generations`` samples per prompt; no tools)."""

from __future__ import annotations

from agenttune.training.arguments import on_policy_arguments
from agenttune.training.spec import TrainerSpec


def build_rloo(spec: TrainerSpec):
    from trl import RLOOConfig, RLOOTrainer

    spec.refuse_tools()
    if not spec.reward_funcs:
        raise ValueError("rloo needs reward_funcs")
    spec.check_reference_reloadable()
    return RLOOTrainer(
        model=spec.model,
        reward_funcs=spec.reward_funcs,
        args=RLOOConfig(**on_policy_arguments(spec.algorithm, spec.output_dir)),
        train_dataset=spec.data.require("prompts", "rloo"),
        eval_dataset=spec.data.eval,
        processing_class=spec.tokenizer,
        callbacks=spec.callbacks,
        peft_config=spec.peft_config,
    )
