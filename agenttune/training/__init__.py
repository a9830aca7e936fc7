"""Glue from EventLog projections to trainers: one entry point, :func:`build_trainer`, one module per algorithm.

Each algorithm module declares its typed config, builder and data (:mod:`agenttune.training.registry`); ask
:func:`algorithm_info` about an algorithm rather than checking its name. ``algorithm.trl`` passes any other option
to the algorithm's TRL config unchanged.

| algorithm | trainer | data (:class:`TrainingData` field) |
| --- | --- | --- |
| grpo | TRL GRPOTrainer, multi-turn tools via ``tools`` / ``environment_factory`` | ``prompts`` |
| rloo | TRL RLOOTrainer | ``prompts`` |
| ppo | the project's PPO loop with a value head (``training/ppo/``) | episodes only (``rollouts``) |
| dpo | TRL DPOTrainer, ``loss_type=preference_loss`` | ``preferences`` |
| bco | DPOTrainer ``bco_pair`` on pairs, else :class:`BCOUnpairedTrainer` | ``preferences`` or ``unpaired`` |
| kto | TRL KTOTrainer, labels from rewards | ``unpaired`` |
| sft | the weighted SFT trainer (``training/weighted_sft.py``) | ``sft`` |

Typical use::

    trainer = build_trainer(algorithm_config(cfg.algorithm), model, tokenizer, TrainingData(prompts=rows), run_dir,
                            reward_funcs=[answer_reward], callbacks=[MetricsCallback(tracker.log)])
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
