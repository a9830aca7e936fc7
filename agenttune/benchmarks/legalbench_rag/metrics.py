"""Doc@k: does a gold source document appear among the documents of the top ``k`` hits?"""

from __future__ import annotations

from collections.abc import Sequence

from agenttune.benchmarks.legalbench_rag.data import LegalBenchQuery
from agenttune.rag.retriever import Hit, Retriever


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
