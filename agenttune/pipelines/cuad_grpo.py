"""CUAD contract search with GRPO: evaluate, warm-start, train with real search calls, evaluate again.

1. Questions from CUAD's clause annotations (train and held-out splits) and a retrieval index over the contracts
   they need plus distractors (``benchmark.max_docs``), built once in the cache.
2. ``eval_before/*``: one episode per held-out question with the starting policy.
3. Warm start (``warm_start.enabled``; on in ``+experiment=cuad_grpo``): the retrieval teacher's trajectories on
   ``warm_start.num_questions`` train questions, distilled with masked SFT (``cuad_distill``'s recipe,
   ``distill/*`` metrics), so that a small model calls ``search`` before RL. Skipped when the job resumes from a
   GRPO checkpoint (which holds the warm-started weights) or starts from ``init_from``.
4. GRPO (``algorithm=grpo``; rloo and ppo work too) on the first ``benchmark.num_train`` train questions: each
   rollout is an episode of the episode loop (the evaluation episodes' engine, strategy and search harness),
   scored from its EventLog by ``reward=cuad_search`` and written to ``eventlogs/train/step-<N>.jsonl``.
5. ``eval_after/*`` with the trained policy. Every episode is in ``eventlogs/``.
"""

from __future__ import annotations

from omegaconf import DictConfig

from agenttune.config import AlgorithmConfig
from agenttune.pipelines.common import episode_rollouts, load_policy, resume_checkpoint, train_policy, typed
from agenttune.pipelines.cuad_distill import distill
from agenttune.pipelines.search_agent import cuad_setup, evaluate, harness_factory, search_reward
from agenttune.tracking.run import RunContext
from agenttune.training import TrainingData


def run(cfg: DictConfig, run: RunContext) -> None:
    # The corpus holds the warm-start questions' contracts whether or not this job runs the warm start, so a
    # resumed job searches the same index.
    num_questions = max(
        cfg.benchmark.num_train, cfg.warm_start.num_questions if cfg.warm_start.enabled else 0
    )
    train_questions, held_out, retriever = cuad_setup(cfg, num_questions)
    resume_from = resume_checkpoint(cfg, run)
    warm_start = cfg.warm_start.enabled and not cfg.init_from and not resume_from
    model, tokenizer = load_policy(cfg)
    evaluate(cfg, run, model, tokenizer, held_out, retriever, "eval_before")
    if warm_start:
        stage = typed(cfg.warm_start.algorithm, AlgorithmConfig)
        distill(cfg, run, model, tokenizer, train_questions, retriever, stage=stage)
    tasks = train_questions[: cfg.benchmark.num_train]
    rollouts = episode_rollouts(
        cfg, run, tokenizer, tasks, harness_factory(cfg, retriever), search_reward(cfg)
    )
    train_policy(cfg, run, model, tokenizer, TrainingData(), resume_from=resume_from, rollouts=rollouts)
    evaluate(cfg, run, model, tokenizer, held_out, retriever, "eval_after")
