"""Knowledge-base search over the 698 banking documents through agenttune's retrieval backends.

Each document is chunked (``agenttune.rag.chunking``, title as the chunk header) and indexed by the backend the
``retrieval`` group names (sqlite_fts, bm25s, chroma or hybrid); the index is built once into the cache and
reused. :func:`use_backend` picks the backend for the process (the benchmark calls it from the config; the
default is sqlite_fts in the default cache). ``KB_search`` returns the best documents, whole, best first: a
document's chunks count once, at its best rank.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from agenttune.benchmarks.tau2.banking.data import Document, load_documents
from agenttune.rag.backends import make_retriever
from agenttune.rag.chunking import Chunk, chunk_text
from agenttune.rag.retriever import Retriever

DEFAULT_TOP_K = 3


@dataclass(frozen=True)
class KnowledgeSettings:
    backend: str = "sqlite_fts"
    cache_dir: str | None = None
    top_k: int = DEFAULT_TOP_K
    options: tuple[tuple[str, Any], ...] = ()  # extra backend arguments (hybrid's rrf_k, weights)


_SETTINGS = KnowledgeSettings()


def use_backend(
    backend: str, cache_dir: str | Path | None = None, top_k: int = DEFAULT_TOP_K, **options: Any
) -> None:
    """Search the knowledge base with ``backend`` from now on (in this process)."""
    global _SETTINGS
    frozen = tuple(
        sorted((k, tuple(sorted(v.items())) if isinstance(v, dict) else v) for k, v in options.items())
    )
    _SETTINGS = KnowledgeSettings(backend, str(cache_dir) if cache_dir else None, top_k, frozen)


def use_retrieval_config(cfg: Any) -> None:
    """Search with the backend the job's ``retrieval`` group names, its index in ``paths.cache_dir``."""
    hybrid = cfg.retrieval.name == "hybrid"
    options = {"rrf_k": cfg.retrieval.rrf_k, "weights": dict(cfg.retrieval.weights)} if hybrid else {}
    use_backend(cfg.retrieval.name, cfg.paths.cache_dir, **options)


@cache
def documents() -> dict[str, Document]:
    return {doc.id: doc for doc in load_documents()}


def document_chunks(size: int = 1200, overlap: int = 200) -> list[Chunk]:
    return [
        chunk
        for doc in documents().values()
        for chunk in chunk_text(doc.id, doc.content, size=size, overlap=overlap, header=doc.title)
    ]


@cache
def retriever(settings: KnowledgeSettings) -> Retriever:
    """The backend's index over the documents (built on first use, then loaded from the cache)."""
    options = {key: dict(value) if isinstance(value, tuple) else value for key, value in settings.options}
    backend = make_retriever(settings.backend, cache_dir=settings.cache_dir, k=settings.top_k * 4, **options)
    return backend.build(document_chunks())


def ranked_documents(query: str, top_k: int, settings: KnowledgeSettings | None = None) -> list[str]:
    """Ids of the ``top_k`` best documents for ``query``."""
    settings = settings or _SETTINGS
    ranked: list[str] = []
    for hit in retriever(settings).search(query, k=max(top_k * 4, settings.top_k * 4)):
        if hit.doc_id not in ranked:
            ranked.append(hit.doc_id)
    return ranked[:top_k]


def search(query: str) -> str:
    """What ``KB_search`` shows the agent."""
    if not isinstance(query, str) or not query.strip():
        raise ValueError("query must be a non-empty string")
    found = ranked_documents(query, _SETTINGS.top_k)
    if not found:
        return "No documents matched the query."
    return "\n\n".join(
        f"[{doc_id}] {documents()[doc_id].title}\n{documents()[doc_id].content}" for doc_id in found
    )
