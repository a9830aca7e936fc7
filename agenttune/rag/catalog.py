"""A catalogue of a corpus's documents, searchable by name: how an agent finds a contract by title and parties.

Each document is listed once with its header (for CUAD ``"<title> (<party>; <party>)"``, see
:attr:`agenttune.rag.chunking.Chunk.header`) and searched by BM25 (``bm25s``) over its id's words and its
header, so "Strategic Alliance Agreement Moelis" ranks the Moelis contract first. The index is a few hundred
short rows and is built in memory in milliseconds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from agenttune.rag.bm25 import _bm25s
from agenttune.rag.chunking import Chunk


@dataclass(frozen=True)
class CatalogEntry:
    """One document: its id, its header ('' when the corpus has none) and the match score."""

    doc_id: str
    header: str
    score: float = 0.0


def _words(text: str) -> str:
    """``text`` with every run of non-alphanumerics (``_``, ``-``, ``.``) made a space, for tokenising ids."""
    return re.sub(r"[\W_]+", " ", text)


class DocumentCatalog:
    """The documents of ``chunks`` (first-seen order), searchable by id and header words."""

    def __init__(self, chunks: Sequence[Chunk]) -> None:
        headers: dict[str, str] = {}
        for chunk in chunks:
            headers.setdefault(chunk.doc_id, chunk.header)
        if not headers:
            raise ValueError("a document catalog needs at least one chunk")
        self.entries = [CatalogEntry(doc_id, header) for doc_id, header in headers.items()]
        self.headers = headers
        bm25s = _bm25s()
        self._model = bm25s.BM25()
        rows = [f"{_words(e.doc_id)} {e.header}" for e in self.entries]
        self._model.index(bm25s.tokenize(rows, stopwords="en", show_progress=False), show_progress=False)

    def __contains__(self, doc_id: str) -> bool:
        return doc_id in self.headers

    def __len__(self) -> int:
        return len(self.entries)

    def find(self, query: str, k: int = 8) -> list[CatalogEntry]:
        """The ``k`` documents whose id and header best match ``query``, best first (only those matching a word)."""
        bm25s = _bm25s()
        vocab = self._model.vocab_dict
        tokens = bm25s.tokenize([query], stopwords="en", return_ids=False, show_progress=False)[0]
        tokens = [t for t in tokens if t in vocab]
        if not tokens:
            return []
        ids, scores = self._model.retrieve([tokens], k=min(k, len(self.entries)), show_progress=False)
        return [
            CatalogEntry(self.entries[i].doc_id, self.entries[i].header, float(s))
            for i, s in zip(ids[0].tolist(), scores[0].tolist(), strict=True)
            if s > 0
        ]
