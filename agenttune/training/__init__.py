"""Glue from EventLog projections to trainers: one entry point, :func:`build_trainer`, one module per algorithm.

| algorithm | trainer | data (:class:`TrainingData` field) |
| --- | --- | --- |
| grpo | TRL GRPOTrainer, multi-turn tools via ``tools`` / ``environment_factory`` | ``prompts`` |
| rloo | TRL RLOOTrainer | ``prompts`` |
| ppo | the project's PPO loop with a value head (``training/ppo/``) | ``prompts`` |
| dpo | TRL DPOTrainer, ``loss_type=preference_loss`` | ``preferences`` |
| bco | DPOTrainer ``bco_pair`` on pairs, else :class:`BCOUnpairedTrainer` | ``preferences`` or ``unpaired`` |
| kto | TRL KTOTrainer, labels from rewards | ``unpaired`` |
| sft | the weighted SFT trainer (``training/weighted_sft.py``) | ``sft`` |

Typical use::

    trainer = build_trainer(cfg.algorithm, model, tokenizer, TrainingData(prompts=rows), run_dir,
                            reward_funcs=[answer_reward], callbacks=[MetricsCallback(tracker.log)])
    train(trainer, resume_from=last_checkpoint(run_dir) if cfg.resume else None)
"""

from agenttune.training.builder import ALGORITHMS, build_trainer
from agenttune.training.callbacks import MetricsCallback
from agenttune.training.checkpoints import last_checkpoint, train
from agenttune.training.data import TrainingData, label_by_reward

__all__ = [
    "ALGORITHMS",
    "MetricsCallback",
    "TrainingData",
    "build_trainer",
    "label_by_reward",
    "last_checkpoint",
    "train",
]
