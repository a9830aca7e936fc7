"""PPO for multi-turn tool-using policies, written in the project from public pieces (see ``trainer.py``).

There is no TRL config behind it: the loop reads :class:`PPOAlgorithmConfig` and refuses ``algorithm.trl``.
"""

from agenttune.training.ppo.config import PPOAlgorithmConfig
from agenttune.training.ppo.trainer import PPOTrainer
from agenttune.training.registry import Algorithm

ALGORITHM = Algorithm(name="ppo", config=PPOAlgorithmConfig, build=PPOTrainer, data=None, on_policy=True)

__all__ = ["ALGORITHM", "PPOAlgorithmConfig", "PPOTrainer"]
