"""Dense search: MiniLM sentence embeddings in a persistent ChromaDB collection (cosine distance).

Embeddings are computed here (with a progress bar) and handed to Chroma, so Chroma never tries to fetch
its own embedding model. Chunk vectors come from the :class:`~agenttune.rag.embedding_cache.EmbeddingCache` (filled
ahead by ``scripts/build_embeddings.py``, or here for the chunks it lacks). ``chromadb`` is imported lazily: it
belongs to the ``rag`` extra.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from agenttune.progress import progress
from agenttune.rag.chunking import Chunk
from agenttune.rag.embedding_cache import EmbeddingCache
from agenttune.rag.embeddings import DEFAULT_MODEL, RAG_EXTRA_HINT, load_embedder
from agenttune.rag.retriever import CachedRetriever, Hit

COLLECTION = "chunks"


def _chromadb():
    try:
        import chromadb
    except ImportError as err:
        raise ImportError(f"chromadb is needed for the chroma backend: {RAG_EXTRA_HINT}") from err
    return chromadb


class ChromaRetriever(CachedRetriever):
    """Nearest chunks by cosine similarity of sentence embeddings.

    Args:
        cache_dir: folder for persistent indexes.
        k: default number of hits.
        model: ``"all-MiniLM-L6-v2"`` (bundled), ``"all-MiniLM-L6-v2-static"`` (its static distillation, built
            into the cache by ``scripts/build_embeddings.py``) or a local SentenceTransformer folder.
        batch_size: chunks encoded per batch while building.
        device: torch device for the encoder.
    """

    name = "chroma"

    def __init__(
        self,
        cache_dir: str | Path | None = None,
        k: int = 8,
        model: str = DEFAULT_MODEL,
        batch_size: int = 64,
        device: str = "cpu",
    ) -> None:
        super().__init__(cache_dir=cache_dir, k=k)
        self.model = model
        self.batch_size = batch_size
        self.device = device
        self._collection = None

    def params(self) -> dict:
        return {**super().params(), "model": self.model}

    def _client(self, index_dir: Path):
        chromadb = _chromadb()
        from chromadb.config import Settings

        return chromadb.PersistentClient(path=str(index_dir), settings=Settings(anonymized_telemetry=False))

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length embeddings of ``texts``, one row each."""
        embedder = load_embedder(self.model, self.device, self.cache_dir)
        return embedder.encode(list(texts), batch_size=self.batch_size, normalize_embeddings=True)

    def embeddings(self, chunks: Sequence[Chunk], progress: bool = True) -> np.ndarray:
        """The chunks' embeddings (of their ``index_text``), from the cache or encoded into it."""
        cache = EmbeddingCache(self.cache_dir, Path(self.model).name)
        return cache.encode([c.index_text for c in chunks], self.encode, self.batch_size * 4, progress)

    def _build_index(self, chunks: Sequence[Chunk], index_dir: Path) -> None:
        vectors = self.embeddings(chunks)
        collection = self._client(index_dir).create_collection(
            COLLECTION, embedding_function=None, metadata={"hnsw:space": "cosine"}
        )
        step = 4096  # below Chroma's largest batch
        for i in progress(
            range(0, len(chunks), step), desc=f"chroma index ({len(chunks)} chunks)", unit="batch"
        ):
            batch = chunks[i : i + step]
            collection.add(
                ids=[c.id for c in batch],
                embeddings=vectors[i : i + step].tolist(),
                documents=[c.text for c in batch],
                metadatas=[{"doc_id": c.doc_id, "start": c.start, "end": c.end} for c in batch],
            )

    def _open_index(self, index_dir: Path) -> None:
        self._collection = self._client(index_dir).get_collection(COLLECTION, embedding_function=None)

    def similarities(self, query: str, chunk_ids: Sequence[str]) -> list[float]:
        """Cosine similarity of ``query`` to each of the indexed chunks ``chunk_ids`` (for reranking)."""
        if self._collection is None:
            raise RuntimeError("build the index before asking for similarities")
        if not chunk_ids:
            return []
        stored = self._collection.get(ids=list(chunk_ids), include=["embeddings"])
        by_id = dict(zip(stored["ids"], np.asarray(stored["embeddings"], dtype=np.float32), strict=True))
        missing = [c for c in chunk_ids if c not in by_id]
        if missing:
            raise KeyError(f"chunks not in the dense index: {missing[:5]}")
        vectors = np.stack([by_id[c] for c in chunk_ids])
        return (vectors @ self.encode([query])[0]).tolist()

    def _search(self, query: str, k: int, doc_id: str | None) -> list[Hit]:
        result = self._collection.query(
            query_embeddings=self.encode([query]).tolist(),
            n_results=min(k, self._collection.count()),
            where={"doc_id": doc_id} if doc_id is not None else None,
            include=["documents", "metadatas", "distances"],
        )
        return [
            Hit(chunk_id, meta["doc_id"], 1.0 - distance, text, meta["start"], meta["end"])
            for chunk_id, meta, distance, text in zip(
                result["ids"][0],
                result["metadatas"][0],
                result["distances"][0],
                result["documents"][0],
                strict=True,
            )
        ]
