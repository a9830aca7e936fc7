"""Pipelines: what a job does, named by ``pipeline=`` in the config.

Each pipeline is a function ``run(cfg, run: RunContext) -> None`` in its own module, imported only when chosen.
Every one takes any benchmark (``benchmark=``, :mod:`agenttune.benchmarks.base`): ``evaluate`` (one evaluation
phase), ``rl`` (evaluate, warm start, on-policy training, evaluate), ``distill`` (teacher -> filter -> SFT),
``self_evolve`` (ToolGraph + divergence-point DPO, for benchmarks that describe their domains) and
``train_on_logs`` (recorded trajectories). Their building blocks are in :mod:`agenttune.pipelines.stages`.
"""

from __future__ import annotations

import importlib

from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from omegaconf import DictConfig

from agenttune.config import validate_config
from agenttune.tracking.run import RunContext

PIPELINES = {
    "evaluate": "agenttune.pipelines.evaluate",
    "rl": "agenttune.pipelines.rl",
    "distill": "agenttune.pipelines.distill",
    "self_evolve": "agenttune.pipelines.self_evolve",
    "train_on_logs": "agenttune.pipelines.train_on_logs",
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
