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

Typical use (on-policy training on a benchmark's tasks; ``stages.policy.episode_rollouts`` builds the rollouts)::

    trainer = build_trainer(algorithm_config(cfg.algorithm), model, tokenizer, TrainingData(), run_dir,
                            rollouts=rollouts, callbacks=[MetricsCallback(tracker.log)])
    train(trainer, resume_from=last_checkpoint(run_dir) if cfg.resume else None)
"""

import importlib

# Names and the modules that define them, imported on first use (PEP 562): composing a config imports the
# algorithm registry through this package, and must not pay for transformers' Trainer (peft, bitsandbytes).
_EXPORTS = {
    "Algorithm": "agenttune.training.registry",
    "MetricsCallback": "agenttune.training.callbacks",
    "TrainingData": "agenttune.training.data",
    "algorithm_config": "agenttune.training.registry",
    "algorithm_info": "agenttune.training.registry",
    "algorithms": "agenttune.training.registry",
    "build_trainer": "agenttune.training.builder",
    "label_by_reward": "agenttune.training.data",
    "last_checkpoint": "agenttune.training.checkpoints",
    "train": "agenttune.training.checkpoints",
}


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'agenttune.training' has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)


__all__ = [  # noqa: F822 - defined lazily by __getattr__
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
