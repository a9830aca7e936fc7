"""LegalBench-RAG's retrieval metrics: Doc@k (a gold source document among the documents of the top ``k``
passages) and, as its paper scores retrieval, character-span precision and recall at k (of the characters of
the top ``k`` passages, the share inside a gold snippet; of the gold snippets' characters, the share those
passages cover), at each k of :data:`KS`."""

from __future__ import annotations

from collections.abc import Sequence

from agenttune.benchmarks.legalbench_rag.data import LegalBenchQuery
from agenttune.rag import spans
from agenttune.rag.retriever import Hit, Retriever

KS = (1, 2, 4, 8, 16, 32, 64)


def doc_at_k(hits: Sequence[Hit], gold_files: Sequence[str], k: int = 8) -> float:
    """1.0 when any of the first ``k`` hits comes from a gold document.

    >>> doc_at_k([Hit("x#0", "x", 1.0, ""), Hit("g#3", "g", 0.5, "")], ["g"], k=2)
    1.0
    >>> doc_at_k([Hit("x#0", "x", 1.0, ""), Hit("g#3", "g", 0.5, "")], ["g"], k=1)
    0.0
    """
    return float(bool(set(gold_files) & {h.doc_id for h in hits[:k]}))


def evaluate_doc_at_k(
    retriever: Retriever, queries: Sequence[LegalBenchQuery], k: int = 8
) -> dict[str, float]:
    """Mean Doc@k of a built retriever over ``queries``."""
    scores = [doc_at_k(retriever.search(q.query, k), q.gold_files, k) for q in queries]
    return {f"doc@{k}": sum(scores) / len(scores) if scores else 0.0, "queries": float(len(scores))}


def ranked_scores(
    passages: Sequence[Sequence],
    gold_files: Sequence[str],
    gold_spans: Sequence[Sequence],
    ks: Sequence[int] = KS,
) -> dict[str, float]:
    """``doc@k`` for each k, and ``precision@k`` / ``recall@k`` when there are gold spans, of the ranked
    ``passages`` (``(doc_id, start, end)``, best first; the first ``k`` count at k).

    >>> scores = ranked_scores([("x", 0, 50), ("g", 0, 100)], ["g"], [("g", 50, 150)], ks=(1, 2))
    >>> [scores[m] for m in ("doc@1", "doc@2", "precision@2", "recall@1", "recall@2")]
    [0.0, 1.0, 0.3333333333333333, 0.0, 0.5]
    """
    scores = {}
    for k in ks:
        top = list(passages[:k])
        scores[f"doc@{k}"] = float(bool(set(gold_files) & {p[0] for p in top}))
        if gold_spans:
            scores[f"precision@{k}"] = spans.precision(gold_spans, top)
            scores[f"recall@{k}"] = spans.recall(gold_spans, top)
    return scores
