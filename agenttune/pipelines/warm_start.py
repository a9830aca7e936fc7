"""The ``rl`` pipeline's warm start: the benchmark's teacher distilled into the policy, once per recipe with
``warm_start.cache``.

Without the cache the student is trained in the run (``checkpoints/distill/final``). With it, the student is kept in
``<cache_dir>/warm_start/<digest>``, where the digest covers what makes it (:func:`recipe`: the model, benchmark,
harness, strategy, retrieval and ``warm_start`` groups) and not ``seed`` nor the GRPO settings: the first job of a
sweep over learning rates or seeds trains and stores it, every later job loads it (``distill/cached_from``), so
their GRPO runs start from the same weights.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from agenttune.benchmarks.base import Benchmark
from agenttune.stages.phases import distill_teacher
from agenttune.stages.policy import load_policy
from agenttune.tracking.run import RunContext
from agenttune.training import algorithm_config

log = logging.getLogger(__name__)

RECIPE_GROUPS = ("model", "benchmark", "harness", "strategy", "retrieval", "warm_start")
# Which questions a job evaluates and trains GRPO on; the teacher answers the first warm_start.num_questions train
# questions whatever they are. They shape the corpus only when benchmark.max_docs caps it.
QUESTION_COUNTS = ("num_train", "num_eval", "eval_offset")
# How the engine schedules generation, not what the student is trained on.
SCHEDULING = ("max_concurrent",)


def recipe(cfg: DictConfig) -> dict[str, Any]:
    """The resolved config groups the warm-started student depends on."""
    groups = {name: OmegaConf.to_container(cfg[name], resolve=True) for name in RECIPE_GROUPS}
    groups["model"] = {k: v for k, v in groups["model"].items() if k not in SCHEDULING}
    if groups["benchmark"].get("max_docs") is None:
        groups["benchmark"] = {k: v for k, v in groups["benchmark"].items() if k not in QUESTION_COUNTS}
    return groups


def cache_folder(cfg: DictConfig) -> Path:
    digest = hashlib.sha256(json.dumps(recipe(cfg), sort_keys=True, default=str).encode()).hexdigest()[:16]
    return Path(cfg.paths.cache_dir) / "warm_start" / digest


def warm_start(cfg: DictConfig, run: RunContext, benchmark: Benchmark, model, tokenizer):
    """The warm-started (model, tokenizer): ``model`` trained in place by :func:`distill_teacher`, or with
    ``warm_start.cache`` the cached student (trained and stored first when the cache lacks it)."""
    stage = algorithm_config(cfg.warm_start.algorithm)
    teacher_tasks = benchmark.tasks("train", cfg.warm_start.num_questions)
    if not cfg.warm_start.cache:
        distill_teacher(cfg, run, benchmark, model, tokenizer, teacher_tasks, stage=stage)
        return model, tokenizer
    folder = cache_folder(cfg)
    if not (folder / "config.json").exists():
        distill_teacher(cfg, run, benchmark, model, tokenizer, teacher_tasks, stage=stage)
        store(run.checkpoint_dir / "distill" / "final", folder)
        (folder / "recipe.json").write_text(json.dumps(recipe(cfg), indent=2, sort_keys=True, default=str))
        log.info("warm-started student stored in %s", folder)
    else:
        log.info("warm start: loading the cached student %s", folder)
    run.set_summary({"distill/cached_from": str(folder)})
    return load_policy(cfg, init_from=str(folder))


def store(source: Path, folder: Path) -> None:
    """Copy ``source`` to ``folder`` whole or not at all (a copy under a temporary name, then renamed)."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{folder.name}-"))
    shutil.copytree(source, scratch, dirs_exist_ok=True)
    try:
        os.replace(scratch, folder)
    except OSError:  # another job stored the same student first
        shutil.rmtree(scratch, ignore_errors=True)
