"""``pipeline=rl``: evaluate, optionally warm-start from the benchmark's teacher, train on-policy, evaluate again.

1. ``eval_before/*``: the starting policy on the benchmark's eval tasks (skipped for a benchmark without them).
2. Warm start (``warm_start.enabled``): the teacher's trajectories on ``warm_start.num_questions`` train tasks,
   kept when they pass the benchmark's check, distilled with ``warm_start.algorithm`` (``distill/*``), so that a
   small model calls the tools before RL, then ``eval_warm/*`` on the same eval tasks, and ``delta_warm/<metric>``
   (warm start minus before). Skipped when the job resumes (the checkpoint holds the warm-started weights) or
   starts from ``init_from``. With ``warm_start.cache`` the student is trained once per recipe and reused by every
   job, a resumed one too (:mod:`agenttune.pipelines.warm_start`).

   A ``resume=true`` job does not play again the episodes of ``eval_before``, nor of ``eval_warm`` of a cached
   student, that the killed run it continues finished (:func:`~agenttune.stages.phases.reused_episodes`): same
   config, same policy, so its episodes stand and are scored as if played now.
3. ``algorithm`` (grpo, rloo or ppo) on the benchmark's train tasks: every rollout an episode of the episode loop
   with the ``strategy`` group, scored from its EventLog by the benchmark's reward (``train/reward/<name>``),
   written to ``eventlogs/train/step-<N>.jsonl``.
4. ``eval_after/*`` with the trained policy, and ``delta/<metric>``: after minus before paired by task, with its 95%
   bootstrap interval (every ``eval_*/<metric>`` has ``/n``, ``/ci_low`` and ``/ci_high`` too); after a warm start,
   also ``delta_rl/<metric>``: after minus the warm start, what the on-policy training itself changed.

    python train.py +experiment=cuad_grpo            # rl on CUAD contract search with a warm start
"""

from __future__ import annotations

from omegaconf import DictConfig

from agenttune.benchmarks.base import load_benchmark
from agenttune.pipelines.warm_start import warm_start
from agenttune.stages.phases import evaluate, paired_comparison, policy_engine, train_on_policy
from agenttune.stages.policy import load_policy, resume_checkpoint
from agenttune.tracking.run import RunContext


def run(cfg: DictConfig, run: RunContext) -> None:
    benchmark = load_benchmark(cfg)
    eval_tasks = benchmark.tasks("eval") if "eval" in benchmark.splits else []
    resume_from = resume_checkpoint(cfg, run)
    model, tokenizer = load_policy(cfg)

    def evaluate_policy(phase: str, reuse_recorded: bool = False):
        engine = policy_engine(cfg, model, tokenizer)
        return evaluate(cfg, run, benchmark, engine, eval_tasks, phase, reuse_recorded=reuse_recorded)

    before = evaluate_policy("eval_before", reuse_recorded=True) if eval_tasks else None
    warm = None
    # a resumed job's checkpoint holds the warm-started weights; with the cache it evaluates the student again
    if cfg.warm_start.enabled and not cfg.init_from and (cfg.warm_start.cache or not resume_from):
        model, tokenizer = warm_start(cfg, run, benchmark, model, tokenizer)
        # a cached student is the one a killed run evaluated: its recorded eval_warm stands
        warm = evaluate_policy("eval_warm", reuse_recorded=cfg.warm_start.cache) if eval_tasks else None
        paired_comparison(cfg, run, before, warm, "delta_warm")
    train_on_policy(cfg, run, benchmark, model, tokenizer, resume_from)
    if eval_tasks:
        after = evaluate_policy("eval_after")
        paired_comparison(cfg, run, before, after)
        if warm is not None:
            paired_comparison(cfg, run, warm, after, "delta_rl")
