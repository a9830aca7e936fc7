"""One entry point from an algorithm config to a ready trainer."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agenttune.config import AlgorithmConfig
from agenttune.training.data import TrainingData
from agenttune.training.spec import TrainerSpec

if TYPE_CHECKING:
    from agenttune.training.rollouts import EpisodeRollouts


def _builders() -> dict[str, Callable[[TrainerSpec], Any]]:
    """Algorithm name -> builder; imported here so importing the package does not import TRL."""
    from agenttune.training.bco import build_bco
    from agenttune.training.dpo import build_dpo
    from agenttune.training.grpo import build_grpo
    from agenttune.training.kto import build_kto
    from agenttune.training.ppo import PPOTrainer
    from agenttune.training.rloo import build_rloo
    from agenttune.training.sft import build_sft

    return {
        "grpo": build_grpo,
        "rloo": build_rloo,
        "ppo": PPOTrainer,
        "dpo": build_dpo,
        "bco": build_bco,
        "kto": build_kto,
        "sft": build_sft,
    }


ALGORITHMS = ("grpo", "rloo", "ppo", "dpo", "bco", "kto", "sft")


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
        algorithm: the ``algorithm`` config group (hyperparameters; see :class:`AlgorithmConfig`).
        model: the policy, a loaded causal LM (``agenttune.models.load_model``), LoRA already attached or not.
        tokenizer: its tokenizer, with a tool-calling chat template when tools are used.
        data: the datasets; each algorithm reads one field (see :mod:`agenttune.training.data`).
        output_dir: where checkpoints (``checkpoint-<step>/``) are written.
        reward_funcs: TRL-style reward callables for single-turn sampling from ``data.prompts`` (grpo, rloo).
        rollouts: multi-turn episodes through the project's episode loop, their prompts and rewards included
            (grpo, rloo, ppo; see :mod:`agenttune.training.rollouts`).
        callbacks: transformers callbacks, e.g. :class:`~agenttune.training.MetricsCallback` (the PPO loop
            takes only MetricsCallback).
        peft_config: a peft config to wrap ``model`` with (``agenttune.models.loading.lora_config``).
        ref_model: a frozen reference policy (dpo, bco, kto, ppo); by default a copy of the initial policy,
            or the policy with adapters disabled under PEFT.

    Returns:
        A TRL trainer, or :class:`~agenttune.training.ppo.PPOTrainer`; both have ``train(resume_from_checkpoint)``
        and ``state.global_step``.
    """
    builders = _builders()
    if algorithm.name not in builders:
        raise ValueError(f"algorithm.name={algorithm.name!r}: choose one of {list(builders)}")
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
    return builders[algorithm.name](spec)
