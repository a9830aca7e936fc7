"""PPO for multi-turn tool-using policies, written in the project from public pieces (see ``trainer.py``)."""

from agenttune.training.ppo.trainer import PPOTrainer

__all__ = ["PPOTrainer"]
