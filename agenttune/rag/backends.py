"""Build a retriever by backend name (for scripts; Hydra configs use ``_target_`` with the same classes)."""

from __future__ import annotations

from importlib import import_module

from agenttune.rag.retriever import Retriever

BACKENDS = {
    "sqlite_fts": "agenttune.rag.sqlite_fts.SqliteFtsRetriever",
    "chroma": "agenttune.rag.chroma.ChromaRetriever",
    "hybrid": "agenttune.rag.hybrid.HybridRetriever",
    "bm25s": "agenttune.rag.bm25.Bm25sRetriever",
}


def make_retriever(backend: str, **kwargs) -> Retriever:
    """``make_retriever("hybrid", cache_dir=..., k=8)``: the backend's class called with ``kwargs``."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown retrieval backend {backend!r}; choose one of {sorted(BACKENDS)}")
    module, _, cls = BACKENDS[backend].rpartition(".")
    return getattr(import_module(module), cls)(**kwargs)
