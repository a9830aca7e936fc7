"""Finding and resuming from checkpoints (``checkpoint-<step>`` folders under a run's output folder)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path


def checkpoint_folders(folder: str | os.PathLike) -> list[Path]:
    """The ``checkpoint-<step>`` folders under ``folder``, oldest step first (none when there is no folder)."""
    from transformers.trainer_utils import PREFIX_CHECKPOINT_DIR

    found = [p for p in Path(folder).glob(f"{PREFIX_CHECKPOINT_DIR}-*") if p.name.split("-")[-1].isdigit()]
    return sorted(found, key=lambda p: int(p.name.split("-")[-1]))


def rotate_checkpoints(folder: str | os.PathLike, keep: int | None) -> list[str]:
    """Delete all but the newest ``keep`` ``checkpoint-<step>`` folders under ``folder`` (None keeps all).

    What the transformers Trainer does with ``save_total_limit``, for loops that save on their own (PPO).
    Returns the deleted folders.
    """
    if keep is None:
        return []
    found = checkpoint_folders(folder)
    stale = found[: max(len(found) - keep, 0)]
    for path in stale:
        shutil.rmtree(path)
    return [str(p) for p in stale]


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
