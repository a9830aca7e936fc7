"""agenttune's entry point: python train.py +experiment=NAME [group=option ...] [key=value ...]

Composes conf/train.yaml (typed by agenttune.config), then runs the pipeline the config names inside a
RunContext that writes metrics.jsonl and summary.json under the Hydra run folder and always closes the tracker.
"""

import hydra
from omegaconf import DictConfig

from agenttune.config import register_configs
from agenttune.pipelines import run_job

register_configs()


@hydra.main(version_base="1.3", config_path="conf", config_name="train")
def main(cfg: DictConfig) -> None:
    run_job(cfg)


if __name__ == "__main__":
    main()
