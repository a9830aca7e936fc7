"""GRPO: TRL's GRPOTrainer; multi-turn tool episodes come from the project's episode loop through ``rollout_func``.

With ``spec.rollouts`` (:class:`~agenttune.training.rollouts.EpisodeRollouts`) the trainer's prompts are the
training tasks' opening conversations, each sampled ``num_generations`` times as one episode of the episode loop;
the loss reads the episode's token ids, logprobs and ``env_mask`` from its EventLog, and the reward is the
``total`` the ``reward`` group gave the log (:func:`~agenttune.training.rollouts.episode_reward`, which also
logs each component as ``reward/<name>``). Without it, GRPO samples single-turn completions of ``data.prompts``
with TRL's own generation and scores them with ``reward_funcs``.

``leave_one_out`` is the multi-turn RLOO of :mod:`agenttune.training.rloo`: rewards scaled by
``num_generations / (num_generations - 1)`` and ``scale_rewards="none"`` make GRPO's group-mean advantage equal
to RLOO's leave-one-out advantage ``r_i - mean_{j != i} r_j``.
"""

from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass

from agenttune.training.arguments import SamplingConfig, on_policy_arguments, trl_config
from agenttune.training.registry import Algorithm
from agenttune.training.rollouts import episode_reward
from agenttune.training.spec import TrainerSpec


@dataclass
class GRPOAlgorithmConfig(SamplingConfig):
    loss_type: str = "dapo"  # GRPOConfig.loss_type: grpo | dr_grpo | dapo | bnpo | cispo | sapo ...


def build_grpo(spec: TrainerSpec, leave_one_out: bool = False):
    """GRPOTrainer; ``leave_one_out`` (rloo's episodes) takes GRPO's default ``loss_type`` and the RLOO scaling."""
    from trl import GRPOConfig, GRPOTrainer

    from agenttune.training.shared_prompt import SharedPromptGRPOTrainer

    spec.check_reference_reloadable()
    algorithm = spec.algorithm
    options = {"scale_rewards": "none"} if leave_one_out else {"loss_type": algorithm.loss_type}
    args = trl_config(GRPOConfig, algorithm, {**on_policy_arguments(algorithm, spec.output_dir), **options})
    if spec.rollouts is None:
        prompts, reward_funcs, rollout_func = spec.data.require("prompts", "grpo"), spec.reward_funcs, None
    elif spec.reward_funcs:
        raise ValueError("with episode rollouts the reward comes from the reward group; pass no reward_funcs")
    else:
        prompts, rollout_func = spec.rollouts.dataset(), spec.rollouts
        reward_funcs = [leave_one_out_scaled(algorithm.num_generations) if leave_one_out else episode_reward]
    with (
        warnings.catch_warnings()
    ):  # rollout_func is marked experimental in TRL 1.16; the project relies on it
        warnings.filterwarnings("ignore", message="You are using 'rollout_func'")
        trainer_class = SharedPromptGRPOTrainer if algorithm.share_prompt else GRPOTrainer
        return trainer_class(
            model=spec.model,
            reward_funcs=reward_funcs,
            args=args,
            train_dataset=prompts,
            eval_dataset=spec.data.eval,
            processing_class=spec.tokenizer,
            callbacks=spec.callbacks,
            peft_config=spec.peft_config,
            rollout_func=rollout_func,
        )


def leave_one_out_scaled(num_generations: int):
    """:func:`episode_reward` times ``n / (n - 1)``: GRPO's ``r_i - mean(r)`` then equals RLOO's advantage."""
    if num_generations < 2:
        raise ValueError("rloo needs num_generations >= 2 (a leave-one-out baseline needs a sibling)")
    scale = num_generations / (num_generations - 1)

    @functools.wraps(episode_reward)
    def scaled(*args, **kwargs) -> list[float]:
        return [scale * reward for reward in episode_reward(*args, **kwargs)]

    return scaled


ALGORITHM = Algorithm(
    name="grpo", config=GRPOAlgorithmConfig, build=build_grpo, data="prompts", on_policy=True
)
