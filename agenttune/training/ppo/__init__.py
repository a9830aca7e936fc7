"""PPO for multi-turn tool-using policies, written in the project from public pieces (see ``trainer.py``).

There is no TRL config behind it: the loop reads :class:`PPOAlgorithmConfig` and refuses ``algorithm.trl``.
"""

from agenttune.training.ppo.config import PPOAlgorithmConfig
from agenttune.training.registry import Algorithm


def build_ppo(spec):
    """The project's PPO loop, imported here like the TRL trainers of the other algorithms: declaring the algorithm
    (composing a config) does not import torch's training stack."""
    from agenttune.training.ppo.trainer import PPOTrainer

    return PPOTrainer(spec)


ALGORITHM = Algorithm(name="ppo", config=PPOAlgorithmConfig, build=build_ppo, data=None, on_policy=True)

__all__ = ["ALGORITHM", "PPOAlgorithmConfig"]
