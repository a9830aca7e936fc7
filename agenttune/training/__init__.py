"""Glue from EventLog projections to trainers: one entry point, :func:`build_trainer`, one module per algorithm.

Each algorithm module declares its typed config, builder and data (:mod:`agenttune.training.registry`); ask
:func:`algorithm_info` about an algorithm rather than checking its name. ``algorithm.trl`` passes any other option
to the algorithm's TRL config unchanged.

| algorithm | trainer | data (:class:`TrainingData` field) |
| --- | --- | --- |
| grpo | TRL GRPOTrainer; multi-turn episodes from the project's episode loop through ``rollout_func`` (``rollouts``, :mod:`agenttune.training.rollouts`) | ``prompts`` (single turn) or episodes (``rollouts``) |
| rloo | TRL RLOOTrainer (single turn); with ``rollouts``, GRPOTrainer's ``rollout_func`` with the leave-one-out advantage | ``prompts`` or episodes (``rollouts``) |
| ppo | the project's PPO loop with a value head (``training/ppo/``) | episodes only (``rollouts``) |
| dpo | TRL DPOTrainer, ``loss_type=preference_loss`` | ``preferences`` |
| bco | DPOTrainer ``bco_pair`` on pairs, else :class:`BCOUnpairedTrainer` | ``preferences`` or ``unpaired`` |
| kto | TRL KTOTrainer, labels from rewards | ``unpaired`` |
| sft | the weighted SFT trainer (``training/weighted_sft.py``) | ``sft`` |

Typical use (on-policy training on a benchmark's tasks; ``pipelines.common.episode_rollouts`` builds the rollouts)::

    trainer = build_trainer(algorithm_config(cfg.algorithm), model, tokenizer, TrainingData(), run_dir,
                            rollouts=rollouts, callbacks=[MetricsCallback(tracker.log)])
    train(trainer, resume_from=last_checkpoint(run_dir) if cfg.resume else None)
"""

from agenttune.training.builder import build_trainer
from agenttune.training.callbacks import MetricsCallback
from agenttune.training.checkpoints import last_checkpoint, train
from agenttune.training.data import TrainingData, label_by_reward
from agenttune.training.registry import Algorithm, algorithm_config, algorithm_info, algorithms

__all__ = [
    "Algorithm",
    "MetricsCallback",
    "TrainingData",
    "algorithm_config",
    "algorithm_info",
    "algorithms",
    "build_trainer",
    "label_by_reward",
    "last_checkpoint",
    "train",
]
