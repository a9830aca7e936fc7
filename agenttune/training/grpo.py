"""GRPO: TRL's GRPOTrainer, with multi-turn tool calls through ``tools`` or ``environment_factory``.

Reward functions get, besides ``prompts``, ``completions`` and ``completion_ids``, every extra column of the
prompt dataset as a keyword list, ``trainer_state``, ``log_metric``, ``log_extra`` and, when an
``environment_factory`` is set, ``environments``: the environment instance of each completion, after its episode
(so a reward can read the environment's state). An environment that defines ``get_reward()`` is also a reward
source of its own (weight 1, logged under its class name).
"""

from __future__ import annotations

from agenttune.training.arguments import on_policy_arguments
from agenttune.training.spec import TrainerSpec


def build_grpo(spec: TrainerSpec):
    from trl import GRPOConfig, GRPOTrainer

    spec.check_reference_reloadable()
    algorithm = spec.algorithm
    args = GRPOConfig(**on_policy_arguments(algorithm, spec.output_dir), loss_type=algorithm.loss_type)
    # an environment may own the prompts (its reset() returns them); otherwise the data must have them
    prompts = spec.data.prompts if spec.environment_factory else spec.data.require("prompts", "grpo")
    return GRPOTrainer(
        model=spec.model,
        reward_funcs=spec.reward_funcs,
        args=args,
        train_dataset=prompts,
        eval_dataset=spec.data.eval,
        processing_class=spec.tokenizer,
        callbacks=spec.callbacks,
        peft_config=spec.peft_config,
        tools=spec.tools or None,
        environment_factory=spec.environment_factory,
    )
