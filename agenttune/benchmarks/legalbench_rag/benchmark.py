"""``benchmark=legalbench_rag``: search episodes on legal corpora a CUAD policy never saw (evaluation only).

For each corpus of ``benchmark.corpora`` (MAUD, ContractNLI, PrivacyQA, CUAD) the sample's documents are indexed
together with ``benchmark.distractor_docs`` CUAD contracts (so finding the document is not trivial); each query
is one search episode in that corpus's index. Metrics per corpus: ``<corpus>/doc@8`` (a gold source document
among the documents the agent's searches returned, each search returning the top ``harness.top_k``),
``<corpus>/searches_per_question`` and ``<corpus>/retriever_doc@8`` (the query sent straight to the retriever,
the no-agent reference).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import mean

from agenttune.benchmarks.base import Benchmark, register
from agenttune.benchmarks.legalbench_rag.corpus import legalbench_chunks
from agenttune.benchmarks.legalbench_rag.data import LegalBenchQuery, LegalBenchSet, load_sample
from agenttune.benchmarks.legalbench_rag.metrics import evaluate_doc_at_k
from agenttune.benchmarks.search import build_retriever, returned_docs, search_harness
from agenttune.events.schema import EventKind, EventLog
from agenttune.rag.retriever import Retriever


@dataclass(frozen=True)
class CorpusQuery:
    """A query of one corpus, as the search harness takes it (``question``)."""

    id: str
    question: str
    corpus: str
    gold_files: tuple[str, ...]


@register("legalbench_rag")
class LegalBenchRag(Benchmark):
    splits = ("eval",)

    def tasks(self, split: str, limit: int | None = None) -> list[CorpusQuery]:
        limit = self.limit(split, limit)
        return [
            CorpusQuery(q.id, q.query, corpus.name, tuple(q.gold_files))
            for corpus in self.corpora
            for q in self._queries(corpus, limit)
        ]

    @functools.cached_property
    def corpora(self) -> list[LegalBenchSet]:
        root = f"{self.cfg.paths.data_dir}/legalbench_rag_sample"
        return load_sample(root, list(self.cfg.benchmark.corpora) or None)

    @functools.cached_property
    def indexes(self) -> dict[str, tuple[Retriever, int]]:
        """Per corpus: an index of its documents plus the distractor contracts, and how many documents it holds."""
        bench = self.cfg.benchmark
        indexes = {}
        for corpus in self.corpora:
            chunks = legalbench_chunks(
                corpus, bench.distractor_docs, bench.chunk_size, bench.chunk_overlap, bench.seed
            )
            indexes[corpus.name] = (
                build_retriever(self.cfg, chunks),
                len({chunk.doc_id for chunk in chunks}),
            )
        return indexes

    def harness(self, task: CorpusQuery):
        return search_harness(self.cfg, self.indexes[task.corpus][0])

    def metrics(self, logs: Sequence[EventLog], tasks: Sequence[CorpusQuery]) -> dict[str, float]:
        by_id = {task.id: task for task in tasks}
        metrics: dict[str, float] = {}
        for corpus in self.corpora:
            episodes = [log for log in logs if by_id[log.task_id].corpus == corpus.name]
            if not episodes:
                continue
            queries = self._queries(corpus, len(episodes))
            searches = [sum(e.kind == EventKind.TOOL_CALL for e in log.events) for log in episodes]
            hits = [bool(set(by_id[log.task_id].gold_files) & returned_docs(log)) for log in episodes]
            retriever, documents = self.indexes[corpus.name]
            metrics |= {
                f"{corpus.name}/doc@8": mean(map(float, hits)),
                f"{corpus.name}/searches_per_question": mean(searches),
                f"{corpus.name}/retriever_doc@8": evaluate_doc_at_k(retriever, queries, k=8)["doc@8"],
                f"{corpus.name}/queries": len(episodes),
                f"{corpus.name}/documents": documents,
            }
        return metrics

    @staticmethod
    def _queries(corpus: LegalBenchSet, limit: int) -> list[LegalBenchQuery]:
        return corpus.queries[:limit] if limit else corpus.queries
