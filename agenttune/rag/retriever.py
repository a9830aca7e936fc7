"""The interface every retrieval backend implements, and the build-once, reuse-after cache logic.

:class:`Retriever` is the interface (``build(chunks)``, ``search(query, k)``). A backend with its own index
subclasses :class:`CachedRetriever` and fills in ``_build_index`` (write an index into a folder),
``_open_index`` (load it back) and ``_search``. :meth:`CachedRetriever.build` names the folder by the corpus
fingerprint and only calls ``_build_index`` when no finished index is there: ``build_count`` counts real
builds and ``last_build_reused`` tells whether the last call loaded a finished index.
"""

from __future__ import annotations

import json
import shutil
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agenttune.rag.cache import default_cache_dir, fingerprint, folder_size
from agenttune.rag.chunking import Chunk

DONE_MARKER = "index_done.json"


@dataclass(frozen=True)
class Hit:
    """One search result: the chunk, its document, the backend's score (higher is better), its text and the
    character range ``[start, end)`` of that text in its document."""

    chunk_id: str
    doc_id: str
    score: float
    text: str
    start: int = 0
    end: int = 0


class Retriever(ABC):
    """Search a chunked corpus: ``build(chunks)`` once, then ``search(query, k)`` as often as needed.

    ``k`` is the number of hits ``search`` returns when it is not given one.
    """

    name = "retriever"

    def __init__(self, k: int = 8) -> None:
        self.k = k
        self.last_build_seconds = 0.0

    @abstractmethod
    def build(self, chunks: Sequence[Chunk]) -> Retriever:
        """Make ``chunks`` searchable; returns self."""

    @abstractmethod
    def index_size_bytes(self) -> int:
        """Bytes the index takes on disk."""

    @abstractmethod
    def search(self, query: str, k: int | None = None, doc_id: str | None = None) -> list[Hit]:
        """The best ``k`` hits for ``query``, best first (fewer when fewer chunks match); with ``doc_id``, only
        chunks of that document."""


class CachedRetriever(Retriever):
    """A retriever whose index lives in ``<cache_dir>/indexes/<name>-<fingerprint>``.

    Args:
        cache_dir: folder for persistent indexes (default ``$AGENTTUNE_CACHE_DIR`` or ``<repo>/.cache``).
        k: the number of hits ``search`` returns when it is not given ``k``.
    """

    def __init__(self, cache_dir: str | Path | None = None, k: int = 8) -> None:
        super().__init__(k=k)
        self.cache_dir = Path(cache_dir) if cache_dir else default_cache_dir()
        self.build_count = 0
        self.last_build_reused = False
        self.index_dir: Path | None = None

    def params(self) -> dict:
        """Parameters that change the index's contents; they enter the fingerprint (``layout`` names the version
        of the files an index folder holds)."""
        return {"backend": self.name, "layout": 2}

    def build(self, chunks: Sequence[Chunk]) -> CachedRetriever:
        """Load the index for ``chunks`` from the cache, building it first when it is missing or stale."""
        if not chunks:
            raise ValueError(f"{self.name}: cannot index an empty corpus")
        index_dir = self.cache_dir / "indexes" / f"{self.name}-{fingerprint(chunks, self.params())[:20]}"
        started = time.perf_counter()
        self.last_build_reused = (index_dir / DONE_MARKER).exists()
        if not self.last_build_reused:
            shutil.rmtree(index_dir, ignore_errors=True)
            index_dir.mkdir(parents=True)
            self._build_index(chunks, index_dir)
            (index_dir / DONE_MARKER).write_text(json.dumps({**self.params(), "chunks": len(chunks)}))
            self.build_count += 1
        self._open_index(index_dir)
        self.index_dir = index_dir
        self.last_build_seconds = time.perf_counter() - started
        return self

    def index_size_bytes(self) -> int:
        """Bytes on disk of the current index."""
        return folder_size(self.index_dir) if self.index_dir else 0

    def search(self, query: str, k: int | None = None, doc_id: str | None = None) -> list[Hit]:
        """The best ``k`` hits for ``query`` (fewer when the corpus is smaller or nothing matches); with
        ``doc_id``, only chunks of that document."""
        if self.index_dir is None:
            raise RuntimeError(f"{self.name}: call build(chunks) before search()")
        return self._search(query, k or self.k, doc_id) if query.strip() else []

    @abstractmethod
    def _build_index(self, chunks: Sequence[Chunk], index_dir: Path) -> None: ...

    @abstractmethod
    def _open_index(self, index_dir: Path) -> None: ...

    @abstractmethod
    def _search(self, query: str, k: int, doc_id: str | None) -> list[Hit]: ...
