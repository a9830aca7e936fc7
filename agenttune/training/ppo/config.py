"""The ppo algorithm's typed config: what the project's PPO loop (``trainer.py``) reads besides the shared fields."""

from __future__ import annotations

from dataclasses import dataclass

from agenttune.config import AlgorithmConfig


@dataclass
class PPOAlgorithmConfig(AlgorithmConfig):
    num_generations: int = 2  # episodes of each task per step
    epsilon: float = 0.2  # policy (and value) clip range
    beta: float = 0.0  # KL penalty per token against the reference policy
    vf_coef: float = 0.5  # weight of the value loss
    gamma: float = 1.0  # discount
    gae_lambda: float = 0.95  # GAE's lambda
    ppo_epochs: int = 1  # passes over each step's rollouts
