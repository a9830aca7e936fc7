"""Distil a retrieval teacher into the student: collect, filter, train with masked SFT, evaluate before/after.

1. The scripted retrieval teacher (:mod:`agenttune.benchmarks.cuad.teacher`, which knows the gold answer but can
   only quote what its search showed) runs one episode per train question
   through the same search harness the student uses (``eventlogs/teacher.jsonl``, token-exact full logs).
2. Trajectories that fail the schema, grounding or answer check are dropped (``distill/kept_share`` and the count
   dropped by each check go to the summary).
3. The student trains with weighted SFT on the kept logs: tool results weigh 0 (masked) by default; the ablation
   ``+experiment=cuad_distill_unmasked`` trains on them too.
4. ``eval_before/*`` and ``eval_after/*`` on held-out questions (tool-call rate, EM, F1, evidence).
The student in ``checkpoints/final`` is what ``+experiment=cuad_grpo init_from=...`` starts from.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from hydra.utils import instantiate
from omegaconf import DictConfig

from agenttune.agents.episode import run_episodes
from agenttune.benchmarks.cuad.teacher import RetrievalTeacher, check_trajectory
from agenttune.config import AlgorithmConfig
from agenttune.engines.scripted import ScriptedEngine
from agenttune.events import EventLogWriter, write_jsonl
from agenttune.pipelines.common import load_policy, resume_checkpoint, train_policy, typed
from agenttune.pipelines.log_datasets import training_data
from agenttune.pipelines.search_agent import cuad_setup, evaluate, harness_factory
from agenttune.rag.questions import QuestionRecord
from agenttune.rag.retriever import Retriever
from agenttune.tracking.run import RunContext


def run(cfg: DictConfig, run: RunContext) -> None:
    if cfg.algorithm.name != "sft":
        raise ValueError(f"cuad_distill trains with algorithm=sft, not {cfg.algorithm.name!r}")
    train_questions, held_out, retriever = cuad_setup(cfg)
    model, tokenizer = load_policy(cfg)
    evaluate(cfg, run, model, tokenizer, held_out, retriever, "eval_before")
    distill(cfg, run, model, tokenizer, train_questions, retriever)
    evaluate(cfg, run, model, tokenizer, held_out, retriever, "eval_after")


def distill(
    cfg: DictConfig,
    run: RunContext,
    model,
    tokenizer,
    questions: Sequence[QuestionRecord],
    retriever: Retriever,
    stage: AlgorithmConfig | None = None,
) -> None:
    """Collect teacher trajectories on ``questions``, keep those that pass the checks, train ``model`` on them.

    Trains with ``cfg.algorithm``, or as the preliminary ``stage`` of another pipeline (``distill/*`` metrics,
    checkpoints in ``checkpoints/distill/``). Writes ``eventlogs/teacher.jsonl`` and ``teacher_kept.jsonl``.
    """
    with EventLogWriter(run.eventlog_dir / "teacher.jsonl") as writer:
        teacher_logs = run_episodes(
            ScriptedEngine(RetrievalTeacher(questions), tokenizer),
            harness_factory(cfg, retriever),
            instantiate(cfg.strategy),
            questions,
            writer=writer.write,
            source="cuad_teacher",
        )
    by_id = {q.id: q for q in questions}
    verdicts = [check_trajectory(log, by_id[log.task_id]) for log in teacher_logs]
    kept = [log for log, verdict in zip(teacher_logs, verdicts, strict=True) if not verdict]
    if not kept:
        raise RuntimeError(f"no teacher trajectory passed the checks: {Counter(verdicts)}")
    write_jsonl(kept, run.eventlog_dir / "teacher_kept.jsonl")
    dropped = Counter(v for v in verdicts if v)
    stats = {
        "distill/teacher_episodes": len(teacher_logs),
        "distill/kept_share": len(kept) / len(teacher_logs),
    }
    stats |= {f"distill/dropped_{check}": dropped[check] for check in ("schema", "grounding", "answer")}
    run.log(stats)
    run.set_summary(stats)
    algorithm = stage or typed(cfg.algorithm, AlgorithmConfig)
    data = training_data(algorithm, kept, tokenizer)
    if stage:  # a warm start before another algorithm: never resumed on its own
        train_policy(cfg, run, model, tokenizer, data, prefix="distill", stage=stage)
    else:
        train_policy(cfg, run, model, tokenizer, data, resume_from=resume_checkpoint(cfg, run))
