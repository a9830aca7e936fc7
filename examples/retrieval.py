"""A new retrieval backend: TF-IDF cosine similarity with scikit-learn, its index cached on disk.

A backend subclasses :class:`agenttune.rag.retriever.CachedRetriever` (the cache names the index folder by the
corpus's fingerprint and builds it only once) and fills in three methods; ``conf/retrieval/tfidf.yaml`` names it
in ``_target_``, and every benchmark that searches (``build_retriever``) can use it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import joblib
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics.pairwise import linear_kernel

from agenttune.rag.chunking import Chunk
from agenttune.rag.retriever import CachedRetriever, Hit


class TfidfRetriever(CachedRetriever):
    name = "tfidf"

    def _build_index(self, chunks: Sequence[Chunk], index_dir: Path) -> None:
        vectorizer = TfidfVectorizer(sublinear_tf=True, stop_words="english")
        matrix = vectorizer.fit_transform([chunk.index_text for chunk in chunks])
        joblib.dump((vectorizer, matrix), index_dir / "tfidf.joblib")
        rows = [
            {"id": c.id, "doc_id": c.doc_id, "text": c.text, "start": c.start, "end": c.end} for c in chunks
        ]
        (index_dir / "chunks.json").write_text(json.dumps(rows))

    def _open_index(self, index_dir: Path) -> None:
        self.vectorizer, self.matrix = joblib.load(index_dir / "tfidf.joblib")
        self.chunks = json.loads((index_dir / "chunks.json").read_text())

    def _search(self, query: str, k: int, doc_id: str | None = None) -> list[Hit]:
        scores = linear_kernel(self.vectorizer.transform([query]), self.matrix).ravel()
        ranked = [i for i in scores.argsort()[::-1] if scores[i] > 0]
        if doc_id is not None:
            ranked = [i for i in ranked if self.chunks[i]["doc_id"] == doc_id]
        return [
            Hit(self.chunks[i]["id"], self.chunks[i]["doc_id"], float(scores[i]), self.chunks[i]["text"])
            for i in ranked[:k]
        ]
