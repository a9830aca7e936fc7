"""The Hydra callback that guards a job before Hydra writes anything (``hydra.callbacks.guard`` in
``conf/hydra/default.yaml``).

``on_run_start`` checks the composed config (:func:`agenttune.config_checks.check_config`: value ranges, a
``task_name`` that stays under ``outputs/``, no key given twice) and takes the run folder's lock
(:func:`agenttune.tracking.lock.lock_run_folder`), both before Hydra creates the folder and writes ``.hydra/``, so a
bad config leaves no folder and a second run given a busy folder overwrites nothing; ``on_run_end`` releases the
lock. ``on_multirun_start`` checks the config and the launcher (:func:`agenttune.launch_checks.check_launcher`: its
plugin imports, a Ray cluster's address answers), before the sweep folder is made (each job then locks its own
folder in its :class:`~agenttune.tracking.run.RunContext`). An error is one line and the job exits with status 1: it is raised as
``SystemExit``, since Hydra turns any ``Exception`` a callback raises into a warning and goes on with the job.
"""

from __future__ import annotations

import os
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig

from agenttune.config_checks import ConfigValueError, check_config
from agenttune.launch_checks import LaunchError, check_launcher
from agenttune.tracking.lock import RunFolderBusy, lock_run_folder


class RunGuard(Callback):
    def __init__(self) -> None:
        self._lock = None

    def on_run_start(self, config: DictConfig, **kwargs: Any) -> None:
        try:
            check_config(config, config.hydra.overrides.task)
            self._lock = lock_run_folder(os.path.abspath(str(config.hydra.run.dir)))
        except (ConfigValueError, RunFolderBusy) as error:
            raise SystemExit(f"error: {error}") from None

    def on_run_end(self, config: DictConfig, **kwargs: Any) -> None:
        if self._lock is not None:
            self._lock.release()

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        try:
            check_config(config, config.hydra.overrides.task)
            check_launcher(config.hydra.launcher)
        except (ConfigValueError, LaunchError) as error:
            raise SystemExit(f"error: {error}") from None
