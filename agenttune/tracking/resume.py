"""Finding the checkpoint a ``resume=true`` job continues from.

A run folder is new for every job (``outputs/<task>/runs/<time>``), so resuming looks at the sibling folders of
this run: the newest one whose ``.hydra/config.yaml`` has the same config digest (the same experiment, whatever
its paths) and holds a checkpoint. A killed run has no ``summary.json``, so the digest comes from its config.
"""

from __future__ import annotations

from pathlib import Path

from omegaconf import OmegaConf

from agenttune.tracking.run import config_digest
from agenttune.training.checkpoints import last_checkpoint


def find_resume_checkpoint(cfg, run_dir: str | Path, checkpoint_subdir: str = "checkpoints") -> str | None:
    """The newest checkpoint of an earlier run of the same config beside ``run_dir``, or None."""
    run_dir = Path(run_dir).resolve()
    digest = config_digest(cfg)
    earlier = sorted((p for p in run_dir.parent.iterdir() if p.is_dir() and p != run_dir), reverse=True)
    for folder in earlier:
        config_file = folder / ".hydra" / "config.yaml"
        if not config_file.exists() or config_digest(OmegaConf.load(config_file)) != digest:
            continue
        checkpoint = last_checkpoint(folder / checkpoint_subdir)
        if checkpoint is not None:
            return checkpoint
    return None
