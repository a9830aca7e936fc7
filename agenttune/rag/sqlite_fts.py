"""Lexical search with SQLite's FTS5 and its ``bm25()`` ranking (standard library only).

Model-written queries contain quotes, colons, parentheses and FTS5 keywords (``AND``, ``NEAR``); they are
never passed to ``MATCH`` as written. :func:`fts_query` keeps only word tokens, quotes each one and joins
them with ``OR``, so any string is a valid query.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from agenttune.progress import progress
from agenttune.rag.chunking import Chunk
from agenttune.rag.retriever import CachedRetriever, Hit

MAX_QUERY_TERMS = 64


def fts_query(query: str, max_terms: int = MAX_QUERY_TERMS) -> str:
    """An FTS5 ``MATCH`` expression matching any word of ``query``; empty when it has no words.

    >>> fts_query('governing law: "Delaware" AND (NEAR) -x*')
    '"governing" OR "law" OR "delaware" OR "and" OR "near" OR "x"'
    """
    terms = list(dict.fromkeys(t.lower() for t in re.findall(r"\w+", query)))[:max_terms]
    return " OR ".join(f'"{t}"' for t in terms)


class SqliteFtsRetriever(CachedRetriever):
    """BM25 search over an FTS5 table (``porter unicode61`` tokenizer) stored in ``index.sqlite``; the
    ``body`` column (header and text) is searched, the ``text`` column returned.

    Args:
        cache_dir: folder for persistent indexes.
        k: default number of hits.
        tokenizer: the FTS5 tokenizer specification.
        batch_size: rows inserted per transaction while building.
    """

    name = "sqlite_fts"

    def __init__(
        self,
        cache_dir: str | Path | None = None,
        k: int = 8,
        tokenizer: str = "porter unicode61",
        batch_size: int = 2000,
    ) -> None:
        super().__init__(cache_dir=cache_dir, k=k)
        self.tokenizer = tokenizer
        self.batch_size = batch_size
        self._db: sqlite3.Connection | None = None

    def params(self) -> dict:
        return {**super().params(), "tokenizer": self.tokenizer}

    def _build_index(self, chunks: Sequence[Chunk], index_dir: Path) -> None:
        with sqlite3.connect(index_dir / "index.sqlite") as db:
            db.execute(
                "CREATE VIRTUAL TABLE chunks USING fts5(chunk_id UNINDEXED, doc_id UNINDEXED, start_char UNINDEXED, "
                f"end_char UNINDEXED, text UNINDEXED, body, tokenize = '{self.tokenizer}')"
            )
            rows = [(c.id, c.doc_id, c.start, c.end, c.text, c.index_text) for c in chunks]
            for i in progress(range(0, len(rows), self.batch_size), desc="sqlite_fts index", unit="batch"):
                db.executemany("INSERT INTO chunks VALUES (?, ?, ?, ?, ?, ?)", rows[i : i + self.batch_size])
        db.close()

    def _open_index(self, index_dir: Path) -> None:
        if self._db is not None:
            self._db.close()
        self._db = sqlite3.connect(index_dir / "index.sqlite", check_same_thread=False)

    def _search(self, query: str, k: int, doc_id: str | None) -> list[Hit]:
        match = fts_query(query)
        if not match or self._db is None:
            return []
        scope, args = ("AND doc_id = ? ", (match, doc_id, k)) if doc_id is not None else ("", (match, k))
        rows = self._db.execute(
            "SELECT chunk_id, doc_id, bm25(chunks) AS rank, text, start_char, end_char FROM chunks "
            f"WHERE chunks MATCH ? {scope}ORDER BY rank LIMIT ?",
            args,
        ).fetchall()
        return [Hit(chunk_id, doc, -rank, text, start, end) for chunk_id, doc, rank, text, start, end in rows]
