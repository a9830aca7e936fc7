"""Lexical search with the ``bm25s`` package (sparse-matrix BM25), the LegalBench-RAG baseline's scorer.

``bm25s`` is imported lazily: it belongs to the ``rag`` extra. The chunk table is stored beside the index as
``chunks.jsonl`` so hits carry their text and offsets. A search scoped to one document passes ``bm25s`` a
weight mask that zeroes every other document's chunks.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from agenttune.progress import progress_enabled
from agenttune.rag.chunking import Chunk
from agenttune.rag.embeddings import RAG_EXTRA_HINT
from agenttune.rag.retriever import CachedRetriever, Hit


def _bm25s():
    try:
        import bm25s
    except ImportError as err:
        raise ImportError(f"bm25s is needed for the bm25s backend: {RAG_EXTRA_HINT}") from err
    return bm25s


class Bm25sRetriever(CachedRetriever):
    """BM25 (Lucene variant by default) over lower-cased word tokens with English stop words removed, stemmed by
    the Snowball English stemmer (``PyStemmer``) unless ``stem=False``.

    Args:
        cache_dir: folder for persistent indexes.
        k: default number of hits.
        k1: BM25's term-frequency saturation.
        b: BM25's document-length normalisation.
        method: the ``bm25s`` scoring variant (``lucene``, ``robertson``, ``atire``, ``bm25l``, ``bm25+``).
        stem: stem tokens (index and queries alike).
    """

    name = "bm25s"

    def __init__(
        self,
        cache_dir: str | Path | None = None,
        k: int = 8,
        k1: float = 1.5,
        b: float = 0.75,
        method: str = "lucene",
        stem: bool = True,
    ) -> None:
        super().__init__(cache_dir=cache_dir, k=k)
        self.k1, self.b, self.method, self.stem = k1, b, method, stem
        self._stemmer = None
        self._model = None
        self._chunks: list[dict] = []
        self._doc_rows: dict[str, np.ndarray] = {}

    def params(self) -> dict:
        return {**super().params(), "k1": self.k1, "b": self.b, "method": self.method, "stem": self.stem}

    def _tokenize(self, texts: list[str], show_progress: bool) -> list[list[str]]:
        if self.stem and self._stemmer is None:
            try:
                import Stemmer
            except ImportError as err:
                raise ImportError(f"PyStemmer is needed for bm25s with stem=True: {RAG_EXTRA_HINT}") from err
            self._stemmer = Stemmer.Stemmer("english")
        return _bm25s().tokenize(
            texts, stopwords="en", stemmer=self._stemmer, return_ids=False, show_progress=show_progress
        )

    def _build_index(self, chunks: Sequence[Chunk], index_dir: Path) -> None:
        bm25s = _bm25s()
        model = bm25s.BM25(k1=self.k1, b=self.b, method=self.method)
        shown = progress_enabled()  # bm25s draws its own bars
        model.index(self._tokenize([c.index_text for c in chunks], show_progress=shown), show_progress=shown)
        model.save(str(index_dir / "bm25s"), show_progress=False)
        with (index_dir / "chunks.jsonl").open("w", encoding="utf-8") as f:
            for c in chunks:
                f.write(
                    json.dumps(
                        {"id": c.id, "doc_id": c.doc_id, "start": c.start, "end": c.end, "text": c.text},
                        ensure_ascii=False,
                    )
                    + "\n"
                )

    def _open_index(self, index_dir: Path) -> None:
        self._model = _bm25s().BM25.load(str(index_dir / "bm25s"), show_progress=False)
        with (index_dir / "chunks.jsonl").open(encoding="utf-8") as f:
            self._chunks = [json.loads(line) for line in f]
        rows: dict[str, list[int]] = {}
        for i, chunk in enumerate(self._chunks):
            rows.setdefault(chunk["doc_id"], []).append(i)
        self._doc_rows = {doc: np.asarray(ids) for doc, ids in rows.items()}

    def _search(self, query: str, k: int, doc_id: str | None) -> list[Hit]:
        vocab = self._model.vocab_dict
        tokens = [t for t in self._tokenize([query], show_progress=False)[0] if t in vocab]
        if not tokens or (doc_id is not None and doc_id not in self._doc_rows):
            return []
        mask = None
        if doc_id is not None:
            mask = np.zeros(len(self._chunks), dtype=np.float32)
            mask[self._doc_rows[doc_id]] = 1.0
        ids, scores = self._model.retrieve(
            [tokens], k=min(k, len(self._chunks)), show_progress=False, weight_mask=mask
        )
        hits = []
        for i, score in zip(ids[0].tolist(), scores[0].tolist(), strict=True):
            if score > 0:
                c = self._chunks[i]
                hits.append(Hit(c["id"], c["doc_id"], float(score), c["text"], c["start"], c["end"]))
        return hits
