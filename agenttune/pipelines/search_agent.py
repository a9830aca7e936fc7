"""The search agent's shared pieces: its corpus, retriever, question sets, evaluation episodes and episode rewards.

Used by the ``cuad_grpo``, ``cuad_distill`` and ``legalbench_rag_transfer`` pipelines. Evaluation runs real
episodes (engine + strategy + ``SearchCorpusHarness``), writes them to ``eventlogs/<name>.jsonl`` and scores them
with :func:`agenttune.benchmarks.cuad.metrics.search_metrics`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from hydra.utils import get_class, instantiate
from omegaconf import DictConfig

from agenttune.agents.episode import run_episodes
from agenttune.benchmarks.cuad.dataset import corpus_for, cuad_questions
from agenttune.benchmarks.cuad.metrics import search_metrics
from agenttune.config import HarnessConfig, ModelConfig
from agenttune.engines import build_engine
from agenttune.events import EventLogWriter
from agenttune.events.projections.evaluator import evaluator_input
from agenttune.events.schema import EventLog
from agenttune.harness.search_corpus import SearchCorpusHarness
from agenttune.pipelines.common import typed
from agenttune.rag.questions import QuestionRecord
from agenttune.rag.retriever import Retriever
from agenttune.rewards import cuad_search
from agenttune.rewards.episode import EpisodeReward
from agenttune.rewards.format import tool_call_format
from agenttune.rewards.mix import RewardMix
from agenttune.tracking.run import RunContext

log = logging.getLogger(__name__)


def build_retriever(cfg: DictConfig, chunks) -> Retriever:
    """The ``retrieval`` group's backend over ``chunks`` (index built once in the cache, then reused)."""
    kwargs: dict[str, Any] = {"cache_dir": cfg.paths.cache_dir, "k": cfg.retrieval.k}
    if cfg.retrieval.name == "hybrid":
        kwargs.update(rrf_k=cfg.retrieval.rrf_k, weights=dict(cfg.retrieval.weights))
    retriever = get_class(cfg.retrieval._target_)(**kwargs).build(chunks)
    log.info(
        "retrieval=%s over %d chunks ready in %.1fs",
        cfg.retrieval.name,
        len(chunks),
        retriever.last_build_seconds,
    )
    return retriever


def cuad_setup(
    cfg: DictConfig, num_train: int | None = None
) -> tuple[list[QuestionRecord], list[QuestionRecord], Retriever]:
    """(train questions, held-out questions, retriever over a corpus holding both sets' contracts).

    ``num_train`` train questions (default ``benchmark.num_train``).
    """
    bench = cfg.benchmark
    chunking = {"chunk_size": bench.chunk_size, "chunk_overlap": bench.chunk_overlap}
    limit = num_train or bench.num_train
    train = cuad_questions("single_hop", "train", limit=limit, seed=bench.seed, **chunking)
    held_out = cuad_questions("single_hop", "validation", limit=bench.num_eval, seed=bench.seed, **chunking)
    chunks = corpus_for([*train, *held_out], bench.max_docs, seed=bench.seed, **chunking)
    return train, held_out, build_retriever(cfg, chunks)


def harness_factory(cfg: DictConfig, retriever: Retriever) -> Callable[[], SearchCorpusHarness]:
    harness_cfg = typed(cfg.harness, HarnessConfig)
    return lambda: SearchCorpusHarness.from_config(retriever, harness_cfg)


def evaluate(
    cfg: DictConfig,
    run: RunContext,
    model,
    tokenizer,
    questions: Sequence[QuestionRecord],
    retriever: Retriever,
    prefix: str,
) -> tuple[dict[str, float], list[EventLog]]:
    """Run one episode per question with the policy; log ``<prefix>/*`` metrics and write the episodes."""
    engine = build_engine(typed(cfg.model, ModelConfig), model, tokenizer)
    strategy = instantiate(cfg.strategy)
    model.eval()
    with EventLogWriter(run.eventlog_dir / f"{prefix}.jsonl") as writer:
        logs = run_episodes(
            engine,
            harness_factory(cfg, retriever),
            strategy,
            questions,
            writer=writer.write,
            source=cfg.benchmark.name,
        )
    metrics = search_metrics(logs, questions, prefix)
    run.log(metrics)
    run.set_summary(metrics)
    log.info("%s: %s", prefix, {k: round(v, 3) for k, v in metrics.items()})
    return metrics, logs


def search_columns(log: EventLog, question: QuestionRecord) -> dict[str, Any]:
    """What the search rewards read, from an episode's EventLog and its question: the final reply, the chunks its
    searches showed, how many searches it made, and the question's gold answer and evidence."""
    record = evaluator_input(log)
    return {
        "completion": record["final_answer"],
        "retrieved_chunk_ids": record["retrieved_ids"],
        "num_searches": sum(call["name"] == "search" for call in record["tool_calls"]),
        "answer": question.answer,
        "answer_aliases": question.answer_aliases,
        "gold_chunk_ids": question.gold_chunk_ids,
        "hops": question.hops,
    }


SEARCH_REWARDS = {
    "exact_match": cuad_search.answer_exact_match,
    "token_f1": cuad_search.answer_f1,
    "evidence": cuad_search.evidence_coverage,
    "frugality": cuad_search.search_frugality,
    "format": tool_call_format,
}


def search_reward(cfg: DictConfig) -> EpisodeReward:
    """The ``reward`` group's weighted mix of search rewards, scored on each episode's EventLog."""
    return EpisodeReward(RewardMix.from_config(cfg.reward, SEARCH_REWARDS), search_columns)
