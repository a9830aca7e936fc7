"""Checkpoints (``checkpoint-<step>`` folders under a run's output folder): written whole or not at all, and
resumed from the newest complete one.

Every trainer :func:`~agenttune.training.build_trainer` returns saves a checkpoint into a staging folder,
``<output>/.incomplete/checkpoint-<step>``, and renames it to ``<output>/checkpoint-<step>`` once every file is
written (:func:`staging`; the transformers Trainer through :func:`stage_checkpoints`, the PPO loop directly), so
a kill while saving leaves at most a staging folder, never a partial ``checkpoint-<step>``. A checkpoint counts as
complete when it holds its trainer state (``trainer_state.json``, readable, or the PPO loop's ``ppo_state.pt``):
:func:`last_checkpoint` skips any other ``checkpoint-<step>`` (one an older version or a copy left half-written)
and any staging folder with a warning naming it, and returns the newest complete one.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

log = logging.getLogger(__name__)

INCOMPLETE = ".incomplete"  # the staging folder under a run's checkpoint folder
TRAINER_STATE = "trainer_state.json"  # the transformers Trainer's, written last
PPO_STATE = "ppo_state.pt"  # the PPO loop's (agenttune.training.ppo.trainer), written last


def checkpoint_folders(folder: str | os.PathLike) -> list[Path]:
    """The ``checkpoint-<step>`` folders under ``folder``, oldest step first (none when there is no folder)."""
    from transformers.trainer_utils import PREFIX_CHECKPOINT_DIR

    found = [p for p in Path(folder).glob(f"{PREFIX_CHECKPOINT_DIR}-*") if p.name.split("-")[-1].isdigit()]
    return sorted(found, key=lambda p: int(p.name.split("-")[-1]))


def rotate_checkpoints(folder: str | os.PathLike, keep: int | None) -> list[str]:
    """Delete all but the newest ``keep`` ``checkpoint-<step>`` folders under ``folder`` (None keeps all).

    What the transformers Trainer does with ``save_total_limit``, for saves it does not rotate itself (PPO, and
    every staged save). Returns the deleted folders.
    """
    if keep is None:
        return []
    found = checkpoint_folders(folder)
    stale = found[: max(len(found) - keep, 0)]
    for path in stale:
        shutil.rmtree(path)
    return [str(p) for p in stale]


@contextmanager
def staging(output_dir: str | os.PathLike) -> Iterator[Path]:
    """A fresh ``<output_dir>/.incomplete`` folder to save checkpoints into; when the block ends without error
    each ``checkpoint-<step>`` in it is renamed into ``output_dir`` (replacing one of the same step) and the
    staging folder is removed. On error the staging folder stays, and :func:`last_checkpoint` skips it."""
    output_dir = Path(output_dir)
    root = output_dir / INCOMPLETE
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    yield root
    for folder in checkpoint_folders(root):
        target = output_dir / folder.name
        if target.exists():
            shutil.rmtree(target)
        os.replace(folder, target)
    _fsync_folder(output_dir)
    shutil.rmtree(root)


def stage_checkpoints(trainer):
    """Make a transformers ``Trainer`` save each checkpoint through :func:`staging` (its output folder is pointed
    at the staging folder while it saves), then keep the newest ``save_total_limit``. Returns ``trainer``."""
    save = trainer._save_checkpoint

    def save_staged(model, trial):
        output_dir = trainer.args.output_dir
        with staging(output_dir) as root:
            trainer.args.output_dir = str(root)
            try:
                save(model, trial)
            finally:
                trainer.args.output_dir = output_dir
        rotate_checkpoints(output_dir, trainer.args.save_total_limit)

    trainer._save_checkpoint = save_staged
    return trainer


def incomplete(folder: str | os.PathLike) -> str | None:
    """Why the checkpoint ``folder`` cannot be resumed from, or None when it is complete."""
    folder = Path(folder)
    if (folder / PPO_STATE).is_file():
        return None
    state = folder / TRAINER_STATE
    if not state.is_file():
        return f"no {TRAINER_STATE} or {PPO_STATE}"
    try:
        json.loads(state.read_text())["global_step"]
    except (OSError, ValueError, KeyError, TypeError):
        return f"unreadable {TRAINER_STATE}"
    return None


def last_checkpoint(folder: str | os.PathLike) -> str | None:
    """The newest complete ``checkpoint-<step>`` folder under ``folder``, or None when there is none (or no
    folder); every incomplete one passed over, and a staging folder left by a killed save, is logged as a
    warning naming it."""
    folder = Path(folder)
    for leftover in checkpoint_folders(folder / INCOMPLETE):
        log.warning(
            "skipping %s: a checkpoint whose save never finished (the run stopped while saving it)", leftover
        )
    for checkpoint in reversed(checkpoint_folders(folder)):
        reason = incomplete(checkpoint)
        if reason is None:
            return str(checkpoint)
        log.warning("skipping the incomplete checkpoint %s (%s)", checkpoint, reason)
    return None


def link_earlier_checkpoints(resume_from: str | os.PathLike, output_dir: str | os.PathLike) -> list[Path]:
    """Hard-link into ``output_dir`` the complete checkpoints of the run that ``resume_from`` belongs to, up to
    and including ``resume_from``, so that a resumed run's folder holds the checkpoints an uninterrupted run's
    would (checkpoint selection compares them all). Files are linked, not copied (copied across file systems);
    a checkpoint already in ``output_dir`` is left alone. Returns the folders added."""
    source = Path(resume_from).resolve()
    output_dir = Path(output_dir).resolve()
    if source.parent == output_dir:
        return []
    step = lambda folder: int(folder.name.split("-")[-1])  # noqa: E731
    added = []
    for folder in checkpoint_folders(source.parent):
        target = output_dir / folder.name
        if step(folder) > step(source) or target.exists() or incomplete(folder) is not None:
            continue
        shutil.copytree(folder, target, copy_function=_link_or_copy)
        added.append(target)
    return added


def _link_or_copy(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:  # another file system
        shutil.copy2(source, target)


def train(trainer, resume_from: str | None = None):
    """Run ``trainer`` to ``max_steps``, continuing from the checkpoint folder ``resume_from`` when given.

    Works for every trainer :func:`~agenttune.training.build_trainer` returns (TRL trainers and the PPO loop):
    optimizer, scheduler, RNG and step come back from the checkpoint, so a run stopped at step 2 and resumed with
    ``max_steps=3`` does one more step.
    """
    return trainer.train(resume_from_checkpoint=resume_from)


def _fsync_folder(folder: Path) -> None:
    handle = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)
