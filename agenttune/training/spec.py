"""What :func:`~agenttune.training.build_trainer` hands to the module of each algorithm."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agenttune.config import AlgorithmConfig
from agenttune.training.data import TrainingData

if TYPE_CHECKING:
    from agenttune.training.rollouts import EpisodeRollouts


@dataclass
class TrainerSpec:
    """Everything a trainer is built from: the policy, its data, rewards, tools and callbacks.

    ``reward_funcs`` are TRL-style callables ``f(prompts, completions, **columns) -> list[float]`` for single-turn
    sampling from ``data.prompts``; ``rollouts`` (grpo, rloo, ppo) samples multi-turn episodes through the project's
    episode loop instead, its prompts, tools and rewards included (:mod:`agenttune.training.rollouts`).
    """

    algorithm: AlgorithmConfig
    model: Any
    tokenizer: Any
    data: TrainingData
    output_dir: str
    reward_funcs: list[Callable] = field(default_factory=list)
    rollouts: EpisodeRollouts | None = None
    callbacks: list[Any] = field(default_factory=list)
    peft_config: Any = None
    ref_model: Any = None

    def refuse_rollouts(self) -> None:
        """Fail for algorithms that do not sample while training."""
        if self.rollouts is not None:
            raise ValueError(
                f"algorithm {self.algorithm.name!r} trains on recorded data and samples no rollouts; "
                "use grpo, rloo or ppo for on-policy episodes"
            )

    def uses_adapters(self) -> bool:
        return self.peft_config is not None or hasattr(self.model, "peft_config")

    def reference_model(self):
        """The frozen reference policy for DPO, BCO and KTO: ``ref_model`` when given; under PEFT None (TRL then
        disables the adapters); otherwise a copy of the initial policy (TRL would reload it from the model's path,
        which a model built from a config does not have)."""
        if self.ref_model is not None or self.uses_adapters():
            return self.ref_model
        return copy.deepcopy(self.model).eval().requires_grad_(False)

    def check_reference_reloadable(self) -> None:
        """GRPO and RLOO with ``beta > 0`` reload the reference policy from the model's path, which a model built
        from a config (``tiny_random``) lacks; fail early, naming the fix."""
        if self.algorithm.beta > 0 and not self.uses_adapters() and not self.model.config.name_or_path:
            raise ValueError(
                f"{self.algorithm.name} with beta > 0 reloads the reference model from model.config.name_or_path, "
                "which this model (built from a config) does not have: set algorithm.beta=0 or use LoRA"
            )
