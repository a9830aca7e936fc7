"""agenttune's entry point: python train.py +experiment=NAME [group=option ...] [key=value ...]

Composes conf/train.yaml (typed by agenttune.config), checks that the chosen components fit together, then runs
the pipeline the config names inside a RunContext that writes metrics.jsonl and summary.json under the Hydra run
folder and always closes the tracker. `python train.py --help` lists the groups, experiments and sweeps.
"""

import sys
from pathlib import Path

import hydra
from omegaconf import DictConfig

from agenttune.config_checks import ConfigValueError
from agenttune.config_store import register_configs
from agenttune.launch_checks import LaunchError, check_launcher_choice
from agenttune.pipelines import run_job
from agenttune.pipelines.fit import MisfitError
from agenttune.tracking.lock import RunFolderBusy
from agenttune.tracking.loggers import TrackerError

register_configs()


@hydra.main(version_base="1.3", config_path="conf", config_name="train")
def main(cfg: DictConfig) -> None:
    try:
        run_job(cfg)
    except (MisfitError, ConfigValueError, TrackerError, RunFolderBusy) as error:  # one line, no traceback
        raise SystemExit(f"error: {error}") from None


if __name__ == "__main__":
    try:  # a launcher that does not exist or is not installed: one line, before Hydra composes anything
        check_launcher_choice(sys.argv[1:], Path(__file__).parent / "conf")
    except LaunchError as error:
        raise SystemExit(f"error: {error}") from None
    main()
