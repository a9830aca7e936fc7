"""Where persistent indexes live, and the fingerprint that says when one is stale.

The cache folder is ``$AGENTTUNE_CACHE_DIR`` when set, else ``<repo>/.cache``. An index is stored under a
folder named by a hash of everything it depends on: the backend and its parameters plus every chunk's id,
offsets, header and text. A changed corpus, chunking or parameter gives a new folder, hence a rebuild.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from agenttune.rag.chunking import Chunk

CACHE_DIR_ENV = "AGENTTUNE_CACHE_DIR"
REPO_ROOT = Path(__file__).resolve().parents[2]


def default_cache_dir() -> Path:
    """``$AGENTTUNE_CACHE_DIR`` or ``<repo>/.cache``."""
    return Path(os.environ.get(CACHE_DIR_ENV) or REPO_ROOT / ".cache").resolve()


def fingerprint(chunks: Sequence[Chunk], params: Mapping[str, object]) -> str:
    """A hex digest of the chunks (ids, offsets, header, text) and the index parameters, order-sensitive."""
    digest = hashlib.sha256(json.dumps(dict(params), sort_keys=True, default=str).encode())
    for chunk in chunks:
        digest.update(f"\x00{chunk.id}\x00{chunk.doc_id}\x00{chunk.start}\x00{chunk.end}\x00".encode())
        digest.update(chunk.header.encode() + b"\x00" + chunk.text.encode())
    return digest.hexdigest()


def folder_size(path: Path) -> int:
    """Total bytes of the files under ``path``."""
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
