"""Pipelines: what a job does, named by ``pipeline=`` in the config.

Each pipeline is a function ``run(cfg, run: RunContext) -> None`` in its own module, imported only when chosen.
"""

from __future__ import annotations

import importlib

from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from omegaconf import DictConfig

from agenttune.config import validate_config
from agenttune.tracking.run import RunContext

PIPELINES = {
    "train_on_logs": "agenttune.pipelines.train_on_logs",
    "cuad_grpo": "agenttune.pipelines.cuad_grpo",
    "cuad_distill": "agenttune.pipelines.cuad_distill",
    "legalbench_rag_transfer": "agenttune.pipelines.legalbench_rag_transfer",
    "tau2_eval": "agenttune.pipelines.tau2_eval",
    "tau2_toolgraph_dpo": "agenttune.pipelines.tau2_toolgraph_dpo",
}


def sweep_group() -> str | None:
    """The sweep folder in a multirun (shared by all its jobs), else None."""
    if not HydraConfig.initialized():
        return None
    hydra_cfg = HydraConfig.get()
    return hydra_cfg.sweep.dir if hydra_cfg.mode == RunMode.MULTIRUN else None


def run_job(cfg: DictConfig) -> None:
    validate_config(cfg)
    if cfg.pipeline not in PIPELINES:
        raise ValueError(f"pipeline={cfg.pipeline!r} is unknown; choose one of {sorted(PIPELINES)}")
    pipeline = importlib.import_module(PIPELINES[cfg.pipeline])
    with RunContext(cfg, cfg.paths.output_dir, sweep_group()) as run:
        pipeline.run(cfg, run)
