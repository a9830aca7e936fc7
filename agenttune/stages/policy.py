"""The policy, as every job handles it: loading it, training it with the configured algorithm, saving it."""

from __future__ import annotations

import logging
import random
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import torch
from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf

from agenttune.config import AlgorithmConfig, ModelConfig
from agenttune.engines import build_engine
from agenttune.events.schema import EventLog
from agenttune.harness.protocol import Harness
from agenttune.models import load_model, load_tokenizer
from agenttune.rewards.episode import EpisodeReward
from agenttune.tracking.resume import plan_resume
from agenttune.tracking.run import RunContext
from agenttune.training import MetricsCallback, TrainingData, algorithm_config, build_trainer, train
from agenttune.training.checkpoints import link_earlier_checkpoints
from agenttune.training.rollouts import EpisodeRollouts, engine_sampling

log = logging.getLogger(__name__)


def typed(node, schema):
    """A group's DictConfig as its dataclass (what library functions take)."""
    return OmegaConf.to_object(OmegaConf.merge(OmegaConf.structured(schema), node))


def load_policy(cfg: DictConfig, init_from: str | None = None):
    """(model, tokenizer) for ``cfg.model``, starting from ``init_from`` or ``cfg.init_from`` when set."""
    torch.manual_seed(cfg.seed)
    model_cfg = typed(cfg.model, ModelConfig)
    start = init_from or cfg.init_from
    tokenizer = load_tokenizer(model_cfg, cfg.paths.cache_dir, start)
    model = load_model(model_cfg, cfg.paths.cache_dir, start, seed=cfg.seed)
    return model, tokenizer


def resume_checkpoint(cfg: DictConfig, run: RunContext) -> str | None:
    """The checkpoint a ``resume=true`` job continues from (None when not resuming or nothing to resume); see
    :func:`agenttune.tracking.resume.plan_resume`, which :func:`agenttune.pipelines.run_job` calls first."""
    if not cfg.resume:
        return None
    if run.resume_plan is None:  # a pipeline run without run_job
        run.resume_plan = plan_resume(cfg, run.dir)
        log.warning("resume=true: %s", run.resume_plan.message)
    return run.resume_plan.checkpoint


def episode_rollouts(
    cfg: DictConfig,
    run: RunContext,
    tokenizer,
    tasks: Sequence[Any],
    make_harness: Callable[[Any], Harness],
    reward: EpisodeReward,
    record: Callable[[EventLog, Harness], EventLog] | None = None,
) -> EpisodeRollouts:
    """On-policy rollouts of ``tasks``: the ``model`` group's engine around the live policy, the ``strategy``
    group, ``record`` completing and ``reward`` scoring each EventLog; every episode written to
    ``eventlogs/train/step-<N>.jsonl``, a sample of ``logger.train_episodes`` of each batch (drawn with ``seed``
    and the step) sent to the tracker's ``train/trajectories`` table at the step the trainer logs the batch's update
    (TRL logs the update made at global step N as step N + 1)."""
    model_cfg = typed(cfg.model, ModelConfig)

    def log_sample(step: int, logs: list[EventLog]) -> None:
        size = min(int(cfg.logger.train_episodes), len(logs))
        if size:
            sample = random.Random(cfg.seed * 1_000_003 + step).sample(logs, size)
            run.log_episodes("train/trajectories", sample, "train", step=step + 1)

    return EpisodeRollouts(
        tasks,
        make_harness,
        instantiate(cfg.strategy),
        reward,
        make_engine=lambda model: build_engine(model_cfg, model, tokenizer),
        sampling=engine_sampling(model_cfg),
        log_dir=run.eventlog_dir / "train",
        source=cfg.benchmark.name,
        record=record,
        on_batch=log_sample,
    )


def train_policy(
    cfg: DictConfig,
    run: RunContext,
    model,
    tokenizer,
    data: TrainingData,
    prefix: str = "train",
    stage: AlgorithmConfig | None = None,
    resume_from: str | None = None,
    **trainer_kwargs,
) -> Path:
    """Train with ``cfg.algorithm`` from ``resume_from`` (see :func:`resume_checkpoint`) or from the start, log
    every step, save and return the policy.

    Metrics go to metrics.jsonl as ``<prefix>/<name>``; checkpoints to ``checkpoints/checkpoint-<step>``; the
    final policy (with its tokenizer) to ``checkpoints/final``. Resumed from another run's checkpoint, that
    run's checkpoints up to it are linked in first (:func:`link_earlier_checkpoints`). A preliminary ``stage``
    (e.g. the warm-start SFT before RL) trains with that algorithm instead, into ``checkpoints/<prefix>/``, which
    keeps only ``final``.
    """
    algorithm = stage or algorithm_config(cfg.algorithm)
    checkpoint_dir = run.checkpoint_dir / prefix if stage else run.checkpoint_dir
    log_fn = lambda metrics, step: run.log({f"{prefix}/{k}": v for k, v in metrics.items()}, step=step)  # noqa: E731
    trainer = build_trainer(
        algorithm,
        model,
        tokenizer,
        data,
        str(checkpoint_dir),
        callbacks=[MetricsCallback(log_fn)],
        **trainer_kwargs,
    )
    if resume_from:
        link_earlier_checkpoints(resume_from, checkpoint_dir)
    train(trainer, resume_from=resume_from)
    final = checkpoint_dir / "final"
    trainer.save_model(str(final))
    tokenizer.save_pretrained(str(final))
    model.config.name_or_path = str(final)  # where the current weights live (engines that load from disk)
    if (
        stage
    ):  # nothing resumes a preliminary stage: its checkpoints (1.6 GB each for SmolLM2) would fill the disk
        for checkpoint in checkpoint_dir.glob("checkpoint-*"):
            shutil.rmtree(checkpoint)
    run.set_summary(
        {f"{prefix}/global_step": trainer.state.global_step, f"{prefix}/resumed_from": resume_from}
    )
    log.info("trained policy saved to %s", final)
    return final
