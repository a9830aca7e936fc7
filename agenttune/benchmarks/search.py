"""What the search benchmarks (CUAD contract search, LegalBench-RAG) share: the retriever the ``retrieval`` group
names, the catalogue of its documents, the search harness the ``harness`` group configures, and the search
rewards scored on EventLogs."""

from __future__ import annotations

import logging
from typing import Any

from hydra.utils import get_class
from omegaconf import DictConfig, OmegaConf

from agenttune.config import HarnessConfig
from agenttune.events.projections.evaluator import evaluator_input
from agenttune.events.projections.messages import agent_turns
from agenttune.events.schema import EventKind, EventLog
from agenttune.harness.search_corpus import SearchCorpusHarness
from agenttune.rag.catalog import DocumentCatalog
from agenttune.rag.questions import QuestionRecord
from agenttune.rag.retriever import Retriever
from agenttune.rewards import cuad_search
from agenttune.rewards.episode import EpisodeReward
from agenttune.rewards.format import tool_call_format
from agenttune.rewards.mix import RewardMix

log = logging.getLogger(__name__)

SEARCH_REWARDS = {
    "exact_match": cuad_search.answer_exact_match,
    "token_f1": cuad_search.answer_f1,
    "evidence": cuad_search.evidence_coverage,
    "frugality": cuad_search.search_frugality,
    "format": tool_call_format,
}


def build_retriever(cfg: DictConfig, chunks) -> Retriever:
    """The ``retrieval`` group's backend over ``chunks`` (index built once in the cache, then reused)."""
    kwargs: dict[str, Any] = {"cache_dir": cfg.paths.cache_dir, "k": cfg.retrieval.k}
    if cfg.retrieval.name == "hybrid":
        kwargs.update(
            rrf_k=cfg.retrieval.rrf_k,
            weights=dict(cfg.retrieval.weights),
            dense_model=cfg.retrieval.dense_model,
            rerank_top=cfg.retrieval.rerank_top,
        )
    if cfg.retrieval.name == "chroma":
        kwargs.update(model=cfg.retrieval.dense_model)
    retriever = get_class(cfg.retrieval._target_)(**kwargs).build(chunks)
    log.info(
        "retrieval=%s over %d chunks ready in %.1fs",
        cfg.retrieval.name,
        len(chunks),
        retriever.last_build_seconds,
    )
    return retriever


def search_harness(
    cfg: DictConfig, retriever: Retriever, catalog: DocumentCatalog | None = None
) -> SearchCorpusHarness:
    """A search harness over ``retriever`` (and ``catalog``, for the document tools) with the ``harness`` group's
    settings."""
    harness_cfg = OmegaConf.to_object(OmegaConf.merge(OmegaConf.structured(HarnessConfig), cfg.harness))
    return SearchCorpusHarness.from_config(retriever, harness_cfg, catalog)


def shown_spans(log: EventLog) -> list[list]:
    """``[doc_id, start, end]`` of every passage the episode's search results showed, in order."""
    return [
        list(span)
        for event in log.events
        if event.kind == EventKind.TOOL_RESULT and not event.payload.is_error
        for span in event.payload.metadata.get("spans", [])
    ]


def search_columns(log: EventLog, question: QuestionRecord) -> dict[str, Any]:
    """What the search rewards read, from an episode's EventLog and its question: the policy's turns (the answer
    rewards read the last, the format reward all of them), the chunks and passages its searches showed, how many
    tool calls it made (every call counts), and the question's gold answer and evidence."""
    record = evaluator_input(log)
    return {
        "completion": agent_turns(log),
        "retrieved_chunk_ids": record["retrieved_ids"],
        "shown_spans": shown_spans(log),
        "num_searches": len(record["tool_calls"]),
        "answer": question.answer,
        "answer_aliases": question.answer_aliases,
        "gold_chunk_ids": question.gold_chunk_ids,
        "gold_spans": question.gold_spans,
        "hops": question.hops,
    }


def search_reward(cfg: DictConfig) -> EpisodeReward:
    """The ``reward`` group's weighted mix of search rewards, scored on each episode's EventLog."""
    return EpisodeReward(RewardMix.from_config(cfg.reward, SEARCH_REWARDS), search_columns)


def returned_docs(log: EventLog) -> set[str]:
    """The documents of every passage the episode's search results showed (a document ``find_documents`` only
    listed does not count)."""
    return {doc for doc, _, _ in shown_spans(log)}


def first_query(record: dict[str, Any]) -> str | None:
    """The ``query`` argument of an episode's first tool call, from its :func:`evaluator_input` record; None when it
    made no call."""
    calls = record["tool_calls"]
    return calls[0]["arguments"].get("query") if calls else None
