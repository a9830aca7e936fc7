"""RLOO: a leave-one-out baseline over ``num_generations`` samples per prompt.

Single-turn (``data.prompts`` and ``reward_funcs``): TRL's RLOOTrainer. TRL 1.16's RLOOTrainer has no rollout hook
(no ``rollout_func``, no ``environment_factory``), so multi-turn episodes (``spec.rollouts``) train through
GRPOTrainer's ``rollout_func`` with the leave-one-out advantage (:func:`agenttune.training.grpo.build_grpo`,
``leave_one_out=True``); a KL term (``beta > 0``) then enters the loss, GRPO's way, rather than the reward, and
``algorithm.trl`` goes to GRPOConfig rather than RLOOConfig.
"""

from __future__ import annotations

from dataclasses import dataclass

from agenttune.training.arguments import SamplingConfig, on_policy_arguments, trl_config
from agenttune.training.grpo import build_grpo
from agenttune.training.registry import Algorithm
from agenttune.training.spec import TrainerSpec


@dataclass
class RLOOAlgorithmConfig(SamplingConfig):
    """The sampling trainers' fields: ``num_generations``, ``max_completion_length``, ``epsilon``, ``beta``."""


def build_rloo(spec: TrainerSpec):
    if spec.rollouts is not None:
        return build_grpo(spec, leave_one_out=True)
    from trl import RLOOConfig, RLOOTrainer

    if not spec.reward_funcs:
        raise ValueError("rloo needs reward_funcs")
    spec.check_reference_reloadable()
    return RLOOTrainer(
        model=spec.model,
        reward_funcs=spec.reward_funcs,
        args=trl_config(RLOOConfig, spec.algorithm, on_policy_arguments(spec.algorithm, spec.output_dir)),
        train_dataset=spec.data.require("prompts", "rloo"),
        eval_dataset=spec.data.eval,
        processing_class=spec.tokenizer,
        callbacks=spec.callbacks,
        peft_config=spec.peft_config,
    )


ALGORITHM = Algorithm(
    name="rloo", config=RLOOAlgorithmConfig, build=build_rloo, data="prompts", on_policy=True
)
