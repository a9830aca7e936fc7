"""One run per run folder: a run holds an exclusive lock on its folder while it uses it.

:func:`lock_run_folder` takes ``<folder>/.run.lock`` (``filelock``: ``flock`` on POSIX, released by the kernel when
the process dies, so a killed run never leaves a stale lock) without waiting; a second run given the same folder
(``hydra.run.dir=...`` twice, or two jobs started in the same second with the same ``task_name``) stops at once
with :class:`RunFolderBusy` naming the folder and the process that holds it, before it writes anything there.
The lock is reentrant within a process (one lock object per path), so the Hydra callback
(:class:`agenttune.tracking.guard.RunGuard`, which takes it before Hydra writes ``.hydra/``) and
:class:`~agenttune.tracking.run.RunContext` (which takes it for in-process jobs too) nest.
"""

from __future__ import annotations

import os
from pathlib import Path

from filelock import FileLock, Timeout

LOCK_FILE = ".run.lock"
OWNER_FILE = (
    ".run.owner"  # the holder's pid, for the error message (the lock file itself is truncated on open)
)


class RunFolderBusy(RuntimeError):
    """Another run holds the run folder."""


def lock_run_folder(folder: str | os.PathLike) -> FileLock:
    """Take ``folder``'s run lock (creating the folder) or raise :class:`RunFolderBusy`. Keep the returned lock for
    as long as the run uses the folder and release it when the run ends (dropping the last reference releases it
    too)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    lock = FileLock(folder / LOCK_FILE, timeout=0, is_singleton=True)
    try:
        lock.acquire()
    except Timeout:
        owner = folder / OWNER_FILE
        holder = f"process {owner.read_text().strip()}" if owner.exists() else "another process"
        raise RunFolderBusy(
            f"run folder {folder} is in use by another run ({holder}); give this run its own folder "
            "(a different hydra.run.dir or task_name) or wait for that run to end"
        ) from None
    if lock.lock_counter == 1:
        (folder / OWNER_FILE).write_text(f"{os.getpid()}\n")
    return lock
