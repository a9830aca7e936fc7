"""Hybrid search: reciprocal-rank fusion (RRF) of several retrievers' rankings.

A chunk's fused score is ``sum_i weight_i / (rrf_k + rank_i)`` over the retrievers that ranked it
(``rank`` counts from 1), so agreement between a lexical and a dense ranking lifts a chunk above
either ranking's stragglers.

With ``rerank_top`` set, the first retriever (lexical) proposes its top N and every other retriever only reorders
those N by its own similarity (:meth:`~agenttune.rag.chroma.ChromaRetriever.similarities`): dense reranking of the
lexical candidates, fused with the lexical order by the same RRF. The setting is chosen on train questions by
``scripts/bench/fusion.py``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from agenttune.rag.chunking import Chunk
from agenttune.rag.retriever import Hit, Retriever


def reciprocal_rank_fusion(
    rankings: Mapping[str, Sequence[Hit]], weights: Mapping[str, float] | None = None, rrf_k: int = 60
) -> list[Hit]:
    """Fuse ranked hit lists by RRF; ties keep the order in which chunks were first seen.

    >>> a, b, c = (Hit(i, "d", 0.0, "") for i in "abc")
    >>> [h.chunk_id for h in reciprocal_rank_fusion({"x": [a, b], "y": [b, c]})]
    ['b', 'a', 'c']
    """
    weights = weights or {}
    scores: dict[str, float] = {}
    first: dict[str, Hit] = {}
    for name, hits in rankings.items():
        weight = weights.get(name, 1.0)
        for rank, hit in enumerate(hits, start=1):
            first.setdefault(hit.chunk_id, hit)
            scores[hit.chunk_id] = scores.get(hit.chunk_id, 0.0) + weight / (rrf_k + rank)
    order = sorted(scores, key=lambda chunk_id: -scores[chunk_id])
    return [replace(first[c], score=scores[c]) for c in order]


class HybridRetriever(Retriever):
    """RRF over sub-retrievers, each asked for ``candidates`` hits.

    Args:
        retrievers: name -> retriever (Hydra builds them from nested ``_target_`` entries); by default
            ``{"bm25s": Bm25sRetriever, "chroma": ChromaRetriever}`` sharing ``cache_dir``.
        weights: name -> weight of that retriever's reciprocal ranks (default 1.0 each).
        rrf_k: the RRF constant; larger values flatten the difference between ranks.
        candidates: how many hits each sub-retriever contributes before fusion.
        rerank_top: when > 0, the first retriever's top ``rerank_top`` hits are the only candidates, reordered by
            each other retriever's ``similarities`` before fusion.
        cache_dir: cache folder for the default sub-retrievers.
        k: default number of fused hits.
        dense_model: the default dense sub-retriever's embedding model.
    """

    name = "hybrid"

    def __init__(
        self,
        retrievers: Mapping[str, Retriever] | None = None,
        weights: Mapping[str, float] | None = None,
        rrf_k: int = 60,
        candidates: int = 50,
        cache_dir: str | Path | None = None,
        k: int = 8,
        dense_model: str = "all-MiniLM-L6-v2",
        rerank_top: int = 0,
    ) -> None:
        super().__init__(k=k)
        if retrievers is None:
            from agenttune.rag.bm25 import Bm25sRetriever
            from agenttune.rag.chroma import ChromaRetriever

            retrievers = {
                "bm25s": Bm25sRetriever(cache_dir),
                "chroma": ChromaRetriever(cache_dir, model=dense_model),
            }
        unknown = set(weights or {}) - set(retrievers)
        if unknown:
            raise ValueError(f"weights name retrievers that are not configured: {sorted(unknown)}")
        self.retrievers = dict(retrievers)
        self.weights = dict(weights or {})
        self.rrf_k = rrf_k
        self.candidates = candidates
        self.rerank_top = rerank_top

    def build(self, chunks: Sequence[Chunk]) -> HybridRetriever:
        for retriever in self.retrievers.values():
            retriever.build(chunks)
        self.last_build_seconds = sum(r.last_build_seconds for r in self.retrievers.values())
        return self

    def index_size_bytes(self) -> int:
        return sum(r.index_size_bytes() for r in self.retrievers.values())

    def search(self, query: str, k: int | None = None, doc_id: str | None = None) -> list[Hit]:
        if not self.rerank_top:
            depth = max(self.candidates, k or self.k)
            rankings = {name: r.search(query, depth, doc_id) for name, r in self.retrievers.items()}
            return reciprocal_rank_fusion(rankings, self.weights, self.rrf_k)[: k or self.k]
        (first, lexical), *others = self.retrievers.items()
        found = lexical.search(query, max(self.rerank_top, k or self.k), doc_id)
        rankings = {first: found}
        for name, retriever in others:
            similarity = retriever.similarities(query, [h.chunk_id for h in found])
            rankings[name] = [
                h for _, h in sorted(zip(similarity, found, strict=True), key=lambda sh: -sh[0])
            ]
        return reciprocal_rank_fusion(rankings, self.weights, self.rrf_k)[: k or self.k]
