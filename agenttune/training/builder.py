"""One entry point from an algorithm config to a ready trainer (the algorithm's builder, by its registry entry)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from agenttune.config import AlgorithmConfig
from agenttune.training.checkpoints import stage_checkpoints
from agenttune.training.data import TrainingData
from agenttune.training.registry import algorithm_info
from agenttune.training.spec import TrainerSpec

if TYPE_CHECKING:
    from agenttune.training.rollouts import EpisodeRollouts


def build_trainer(
    algorithm: AlgorithmConfig,
    model,
    tokenizer,
    data: TrainingData,
    output_dir: str,
    reward_funcs: Callable | list[Callable] | None = None,
    rollouts: EpisodeRollouts | None = None,
    callbacks: list | None = None,
    peft_config=None,
    ref_model=None,
):
    """Build the trainer ``algorithm.name`` names; run it with :func:`agenttune.training.train`.

    Args:
        algorithm: the algorithm's typed config (the ``algorithm`` group as
            :func:`~agenttune.training.registry.algorithm_config` gives it).
        model: the policy, a loaded causal LM (``agenttune.models.load_model``), LoRA already attached or not.
        tokenizer: its tokenizer, with a tool-calling chat template when tools are used.
        data: the datasets; each algorithm reads one field (see :mod:`agenttune.training.data`).
        output_dir: where checkpoints (``checkpoint-<step>/``) are written, each whole or not at all
            (:mod:`agenttune.training.checkpoints`).
        reward_funcs: TRL-style reward callables for single-turn sampling from ``data.prompts`` (grpo, rloo).
        rollouts: multi-turn episodes through the project's episode loop, their prompts and rewards included
            (grpo, rloo, ppo; see :mod:`agenttune.training.rollouts`).
        callbacks: transformers callbacks, e.g. :class:`~agenttune.training.MetricsCallback` (the PPO loop
            takes only MetricsCallback).
        peft_config: a peft config to wrap ``model`` with (``agenttune.models.loading.lora_config``).
        ref_model: a frozen reference policy (dpo, bco, kto, ppo); by default a copy of the initial policy,
            or the policy with adapters disabled under PEFT.

    Returns:
        A TRL trainer, or :class:`~agenttune.training.ppo.trainer.PPOTrainer`; both have ``train(resume_from_checkpoint)``
        and ``state.global_step``.
    """
    build = algorithm_info(algorithm.name).build
    if callable(reward_funcs):
        reward_funcs = [reward_funcs]
    spec = TrainerSpec(
        algorithm=algorithm,
        model=model,
        tokenizer=tokenizer,
        data=data,
        output_dir=output_dir,
        reward_funcs=list(reward_funcs or []),
        rollouts=rollouts,
        callbacks=list(callbacks or []),
        peft_config=peft_config,
        ref_model=ref_model,
    )
    trainer = build(spec)
    from transformers import Trainer

    return (
        stage_checkpoints(trainer) if isinstance(trainer, Trainer) else trainer
    )  # the PPO loop stages its own
