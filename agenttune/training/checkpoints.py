"""Finding and resuming from checkpoints (``checkpoint-<step>`` folders under a run's output folder)."""

from __future__ import annotations

import os


def last_checkpoint(folder: str | os.PathLike) -> str | None:
    """The newest ``checkpoint-<step>`` folder under ``folder``, or None when there is none (or no folder)."""
    from transformers.trainer_utils import get_last_checkpoint

    if not os.path.isdir(folder):
        return None
    return get_last_checkpoint(str(folder))


def train(trainer, resume_from: str | None = None):
    """Run ``trainer`` to ``max_steps``, continuing from the checkpoint folder ``resume_from`` when given.

    Works for every trainer :func:`~agenttune.training.build_trainer` returns (TRL trainers and the PPO loop):
    optimizer, scheduler, RNG and step come back from the checkpoint, so a run stopped at step 2 and resumed with
    ``max_steps=3`` does one more step.
    """
    return trainer.train(resume_from_checkpoint=resume_from)
