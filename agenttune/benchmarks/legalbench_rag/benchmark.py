"""``benchmark=legalbench_rag``: search episodes on legal corpora a CUAD policy never saw (evaluation only).

For each corpus of ``benchmark.corpora`` (MAUD, ContractNLI, PrivacyQA, CUAD) the sample's documents are indexed
together with ``benchmark.distractor_docs`` CUAD contracts (so finding the document is not trivial); each query
is one search episode in that corpus's index (the agent has the corpus's catalogue too, for ``find_documents`` and
``search_document``). Metrics per corpus, as LegalBench-RAG scores retrieval
(:func:`~agenttune.benchmarks.legalbench_rag.metrics.ranked_scores`), at k = 1, 2, 4, ..., 64:
``<corpus>/doc@k`` and ``<corpus>/precision@k`` / ``<corpus>/recall@k`` (character spans, on the queries with gold
spans) of the first k passages the agent's searches showed, in order, and the same as ``<corpus>/retriever_*`` of
the query sent straight to the retriever (the no-agent reference); ``<corpus>/searches_per_question`` and
``<corpus>/passages_shown`` (the k the agent reached: at a larger k its scores are those of every passage it was
shown, not padded, so recall stops growing and precision stays over the characters shown); each a mean over the
corpus's queries with its bootstrap interval. ``<corpus>/queries`` and ``<corpus>/documents`` (the index's
documents) count.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from agenttune.benchmarks.base import Benchmark, register
from agenttune.benchmarks.legalbench_rag.corpus import legalbench_chunks
from agenttune.benchmarks.legalbench_rag.data import LegalBenchQuery, LegalBenchSet, load_sample
from agenttune.benchmarks.legalbench_rag.metrics import KS, ranked_scores
from agenttune.benchmarks.search import build_retriever, search_harness, shown_spans
from agenttune.events.schema import EventKind, EventLog
from agenttune.rag.catalog import DocumentCatalog
from agenttune.rag.retriever import Retriever


@dataclass(frozen=True)
class CorpusQuery:
    """A query of one corpus, as the search harness takes it (``question``)."""

    id: str
    question: str
    corpus: str
    gold_files: tuple[str, ...]
    gold_spans: tuple[tuple[str, int, int], ...] = ()


@register("legalbench_rag")
class LegalBenchRag(Benchmark):
    splits = ("eval",)
    uses_retrieval = True

    def tasks(self, split: str, limit: int | None = None) -> list[CorpusQuery]:
        limit = self.limit(split, limit)
        return [
            CorpusQuery(q.id, q.query, corpus.name, tuple(q.gold_files), tuple(q.gold_spans))
            for corpus in self.corpora
            for q in self._queries(corpus, limit)
        ]

    @functools.cached_property
    def corpora(self) -> list[LegalBenchSet]:
        root = f"{self.cfg.paths.data_dir}/legalbench_rag_sample"
        return load_sample(root, list(self.cfg.benchmark.corpora) or None)

    @functools.cached_property
    def indexes(self) -> dict[str, tuple[Retriever, DocumentCatalog]]:
        """Per corpus: an index of its documents plus the distractor contracts, and their catalogue."""
        bench = self.cfg.benchmark
        indexes = {}
        for corpus in self.corpora:
            chunks = legalbench_chunks(
                corpus, bench.distractor_docs, bench.chunk_size, bench.chunk_overlap, bench.seed
            )
            indexes[corpus.name] = (build_retriever(self.cfg, chunks), DocumentCatalog(chunks))
        return indexes

    def harness(self, task: CorpusQuery):
        return search_harness(self.cfg, *self.indexes[task.corpus])

    def episode_scores(
        self, logs: Sequence[EventLog], tasks: Sequence[CorpusQuery]
    ) -> list[dict[str, float]]:
        """Per query, under its corpus: the ranked scores of the passages the agent's searches showed and of the
        query sent straight to the retriever (``retriever_``), its number of tool calls and of passages shown."""
        by_id = {task.id: task for task in tasks}
        scores = []
        for log in logs:
            task = by_id[log.task_id]
            retriever = self.indexes[task.corpus][0]
            hits = retriever.search(task.question, max(KS))
            shown = shown_spans(log)
            agent = ranked_scores(shown, task.gold_files, task.gold_spans)
            alone = ranked_scores(
                [(h.doc_id, h.start, h.end) for h in hits], task.gold_files, task.gold_spans
            )
            scores.append(
                {f"{task.corpus}/{name}": value for name, value in agent.items()}
                | {f"{task.corpus}/retriever_{name}": value for name, value in alone.items()}
                | {
                    f"{task.corpus}/searches_per_question": float(
                        sum(e.kind == EventKind.TOOL_CALL for e in log.events)
                    ),
                    f"{task.corpus}/passages_shown": float(len(shown)),
                }
            )
        return scores

    def metrics(self, logs: Sequence[EventLog], tasks: Sequence[CorpusQuery]) -> dict[str, float]:
        """Per corpus: the queries evaluated and the documents its index holds."""
        by_id = {task.id: task for task in tasks}
        queries = Counter(by_id[log.task_id].corpus for log in logs)
        metrics: dict[str, float] = {}
        for corpus, count in queries.items():
            metrics |= {f"{corpus}/queries": count, f"{corpus}/documents": len(self.indexes[corpus][1])}
        return metrics

    @staticmethod
    def _queries(corpus: LegalBenchSet, limit: int) -> list[LegalBenchQuery]:
        return corpus.queries[:limit] if limit else corpus.queries
