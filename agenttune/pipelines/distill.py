"""``pipeline=distill``: distil the benchmark's teacher into the student: collect, filter, train, evaluate.

1. ``eval_before/*`` on the benchmark's eval tasks (a ``resume=true`` job keeps the episodes its killed run
   finished).
2. The benchmark's teacher (a scripted engine; CUAD's retrieval teacher knows the gold answer but can quote only
   what its searches showed) plays every train task through the same harness and strategy as the student
   (``eventlogs/teacher.jsonl``, token-exact full logs).
3. Trajectories that fail the benchmark's check are dropped (``distill/kept_share``, ``distill/dropped_<check>``).
4. The student trains with ``algorithm`` (weighted SFT: tool results weigh 0 by default; the ablation
   ``+experiment=cuad_distill_unmasked`` trains on them too).
5. ``eval_after/*`` and the paired ``delta/<metric>`` with its 95% interval. The student in ``checkpoints/final`` is what ``+experiment=cuad_grpo init_from=...`` starts from.
"""

from __future__ import annotations

from omegaconf import DictConfig

from agenttune.benchmarks.base import load_benchmark
from agenttune.stages.phases import distill_teacher, evaluate, paired_comparison, policy_engine
from agenttune.stages.policy import load_policy, resume_checkpoint
from agenttune.tracking.run import RunContext
from agenttune.training import algorithm_info


def run(cfg: DictConfig, run: RunContext) -> None:
    if algorithm_info(cfg.algorithm.name).data != "sft":
        raise ValueError(f"distill trains with algorithm=sft, not {cfg.algorithm.name!r}")
    benchmark = load_benchmark(cfg)
    eval_tasks = benchmark.tasks("eval")
    model, tokenizer = load_policy(cfg)
    engine = policy_engine(cfg, model, tokenizer)
    before = evaluate(cfg, run, benchmark, engine, eval_tasks, "eval_before", reuse_recorded=True)
    train_tasks = benchmark.tasks("train")
    distill_teacher(
        cfg, run, benchmark, model, tokenizer, train_tasks, resume_from=resume_checkpoint(cfg, run)
    )
    after = evaluate(cfg, run, benchmark, policy_engine(cfg, model, tokenizer), eval_tasks, "eval_after")
    paired_comparison(cfg, run, before, after)
