"""Pipelines: what a job does, named by ``pipeline=`` in the config.

Each pipeline is a function ``run(cfg, run: RunContext) -> None`` in its own module, imported only when chosen.
Every one takes any benchmark (``benchmark=``, :mod:`agenttune.benchmarks.base`): ``evaluate`` (one evaluation
phase), ``rl`` (evaluate, warm start, on-policy training, evaluate), ``distill`` (teacher -> filter -> SFT),
``self_evolve`` (ToolGraph + divergence-point DPO, for benchmarks that describe their domains) and
``train_on_logs`` (recorded trajectories). Their building blocks are in :mod:`agenttune.stages`.
"""

from __future__ import annotations

import importlib
import logging
import shutil

from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from omegaconf import DictConfig, OmegaConf

from agenttune.config import process_rank
from agenttune.config_checks import check_config
from agenttune.config_store import validate_config
from agenttune.pipelines.fit import MisfitError, check_fit
from agenttune.tracking.resume import plan_resume
from agenttune.tracking.run import RunContext

log = logging.getLogger(__name__)

PIPELINES = {
    "evaluate": "agenttune.pipelines.evaluate",
    "rl": "agenttune.pipelines.rl",
    "distill": "agenttune.pipelines.distill",
    "self_evolve": "agenttune.pipelines.self_evolve",
    "train_on_logs": "agenttune.pipelines.train_on_logs",
    "workflow": "agenttune.pipelines.workflow",
    "self_heal": "agenttune.pipelines.self_heal",
}


def sweep_group() -> str | None:
    """The sweep folder in a multirun (shared by all its jobs), else None."""
    if not HydraConfig.initialized():
        return None
    hydra_cfg = HydraConfig.get()
    return hydra_cfg.sweep.dir if hydra_cfg.mode == RunMode.MULTIRUN else None


NO_JOB = (
    "no job chosen: try `python train.py +experiment=smoke model=tiny_random` (about 15 s on a CPU), "
    "run the main job with `python train.py +experiment=cuad_grpo`, or see `python train.py --help`"
)


def command_line() -> list[str]:
    """The overrides the job was started with (empty outside a Hydra job)."""
    return list(HydraConfig.get().overrides.task) if HydraConfig.initialized() else []


def run_job(cfg: DictConfig) -> None:
    """Check the config, its values (:mod:`agenttune.config_checks`) and that its components fit
    (:mod:`agenttune.pipelines.fit`), then run its pipeline; with ``resume=true`` work out what it continues from
    first (:func:`agenttune.tracking.resume.plan_resume`), and stop there when an earlier run completed it."""
    if OmegaConf.is_missing(cfg, "pipeline"):
        raise MisfitError(NO_JOB)
    validate_config(cfg)
    check_config(cfg, command_line())
    if cfg.pipeline not in PIPELINES:
        raise MisfitError(f"pipeline={cfg.pipeline!r} is unknown; choose one of {sorted(PIPELINES)}")
    check_fit(cfg, command_line())
    pipeline = importlib.import_module(PIPELINES[cfg.pipeline])
    with RunContext(cfg, cfg.paths.output_dir, sweep_group()) as run:
        if cfg.resume:
            run.resume_plan = plan_resume(cfg, run.dir)
            log.warning("resume=true: %s", run.resume_plan.message)
            if run.resume_plan.completed_run is not None:  # nothing to do: no training, no evaluation
                run.set_summary({"resume/completed_run": str(run.resume_plan.completed_run)})
                return
        pipeline.run(cfg, run)
    if process_rank() > 0:  # a multi-process run's other ranks wrote only to their scratch folder
        shutil.rmtree(run.dir, ignore_errors=True)
        return
    log.info("%s done: summary.json, metrics.jsonl and eventlogs/ are in %s", cfg.pipeline, run.dir)
