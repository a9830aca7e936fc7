"""Chunk embeddings computed once and kept: a SQLite table of vectors keyed by the encoder and a hash of the text.

Encoding all 33k CUAD chunks with all-MiniLM-L6-v2 takes tens of minutes on a 2-core CPU, so vectors are stored
in ``<cache_dir>/embeddings/<encoder>.sqlite`` as they are computed, one batch per transaction: an interrupted build
resumes where it stopped, and any corpus (another ``max_docs``, the LegalBench-RAG distractors) reuses the vectors
of the chunks it shares. ``scripts/build_embeddings.py`` fills the cache for the CUAD corpus with a progress bar;
:class:`~agenttune.rag.chroma.ChromaRetriever` reads it when it builds an index.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from agenttune.progress import progress as progress_bar

Encoder = Callable[[list[str]], np.ndarray]


def text_key(text: str) -> str:
    """The cache key of a text: its SHA-1."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


class EmbeddingCache:
    """float32 vectors of one encoder, by text; ``encoder_id`` names the table's file (model and how it runs)."""

    def __init__(self, cache_dir: str | Path, encoder_id: str) -> None:
        folder = Path(cache_dir) / "embeddings"
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / f"{re.sub(r'[^A-Za-z0-9._-]+', '_', encoder_id)}.sqlite"
        self._db = sqlite3.connect(self.path)
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB)")

    def __len__(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]

    def lookup(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored vectors among ``keys``."""
        found = {}
        for i in range(0, len(keys), 500):
            part = list(keys[i : i + 500])
            marks = ",".join("?" * len(part))
            for key, blob in self._db.execute(
                f"SELECT key, vector FROM vectors WHERE key IN ({marks})", part
            ):
                found[key] = np.frombuffer(blob, dtype=np.float32)
        return found

    def store(self, keys: Sequence[str], vectors: np.ndarray) -> None:
        with self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO vectors VALUES (?, ?)",
                [(k, np.asarray(v, dtype=np.float32).tobytes()) for k, v in zip(keys, vectors, strict=True)],
            )

    def encode(
        self, texts: Sequence[str], encoder: Encoder, batch_size: int = 256, progress: bool = True
    ) -> np.ndarray:
        """Vectors of ``texts`` (one row each, in order): stored ones read back, the rest encoded ``batch_size``
        at a time (longest first, so a batch pads little) and stored after each batch."""
        keys = [text_key(t) for t in texts]
        found = self.lookup(list(dict.fromkeys(keys)))
        todo = sorted(
            {k: t for k, t in zip(keys, texts, strict=True) if k not in found}.items(),
            key=lambda kt: -len(kt[1]),
        )
        with progress_bar(
            total=len(todo), desc=f"embeddings ({len(found)} cached)", unit="chunk", enabled=progress
        ) as bar:
            for i in range(0, len(todo), batch_size):
                batch = todo[i : i + batch_size]
                vectors = encoder([t for _, t in batch])
                self.store([k for k, _ in batch], vectors)
                found |= {k: v for (k, _), v in zip(batch, vectors, strict=True)}
                bar.update(len(batch))
        return np.stack([found[k] for k in keys]) if keys else np.zeros((0, 0), dtype=np.float32)
