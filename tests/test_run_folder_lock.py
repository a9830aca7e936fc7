"""A run folder is locked while a run uses it: a second run there stops at once, writing nothing; a killed
holder leaves no stale lock."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from agenttune.config import repo_root
from agenttune.tracking.lock import RunFolderBusy, lock_run_folder

HOLD = "import sys, time; from agenttune.tracking.lock import lock_run_folder; held = lock_run_folder(sys.argv[1]); print('held', flush=True); time.sleep(600)"


@pytest.fixture
def held_folder(tmp_path):
    """A run folder locked by another process (a run in progress); yields (folder, that process)."""
    folder = tmp_path / "run"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(folder)], cwd=repo_root(), stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout.readline().strip() == "held"
    yield folder, holder
    holder.kill()
    holder.wait(timeout=30)


def test_a_second_run_in_a_busy_folder_stops_at_once_and_writes_nothing(held_folder, run_pipeline):
    folder, holder = held_folder
    started = time.time()
    result = subprocess.run(
        [
            sys.executable,
            "train.py",
            "+experiment=smoke",
            "model=tiny_random",
            "logger=none",
            f"hydra.run.dir={folder}",
        ],
        cwd=repo_root(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        f"error: run folder {folder} is in use by another run (process {holder.pid}); give this run its own folder "
        "(a different hydra.run.dir or task_name) or wait for that run to end"
    ]
    assert time.time() - started < 60
    assert sorted(p.name for p in folder.iterdir()) == [".run.lock", ".run.owner"], (
        "nothing of the second run"
    )


def test_a_job_composed_in_process_is_refused_too(held_folder, run_pipeline, tmp_path):
    folder, _ = held_folder
    with pytest.raises(RunFolderBusy, match=str(folder)):
        run_pipeline(["+experiment=smoke", "model=tiny_random"], name=folder.name)
    assert not (folder / "summary.json").exists() and not (folder / ".hydra").exists()


def test_a_killed_run_leaves_no_stale_lock(held_folder):
    folder, holder = held_folder
    with pytest.raises(RunFolderBusy):
        lock_run_folder(folder)
    holder.kill()
    holder.wait(timeout=30)
    lock_run_folder(folder).release()  # the kernel dropped the dead process's lock
