import numpy as np
import pytest

from agenttune.rag.chroma import ChromaRetriever
from agenttune.rag.chunking import chunk_documents
from agenttune.rag.embeddings import ONNX_MODEL, bundled_model_path, load_embedder
from agenttune.rag.hybrid import HybridRetriever
from agenttune.rag.onnx_encoder import OnnxEmbedder, export_onnx_model

TEXTS = [
    "This Agreement shall be governed by the laws of the State of Nevada.",
    "Licensee shall pay all invoices within thirty days.",
    "Either party may terminate this Agreement upon ninety days written notice to the other party, "
    "provided that all fees accrued before termination remain payable.",
]


@pytest.fixture(scope="module")
def onnx_cache(tmp_path_factory):
    """A cache folder with the int8 export (made once for this module)."""
    cache = tmp_path_factory.mktemp("onnx_cache")
    export_onnx_model(bundled_model_path(), cache)
    return cache


def test_a_missing_onnx_file_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="model.int8.onnx"):
        OnnxEmbedder(tmp_path / "model.int8.onnx", bundled_model_path())


@pytest.mark.slow
def test_int8_onnx_vectors_agree_with_pytorch_and_keep_input_order(onnx_cache):
    onnx_file = export_onnx_model(bundled_model_path(), onnx_cache)  # reused, not exported again
    assert onnx_file == onnx_cache / "models" / "all-MiniLM-L6-v2-onnx" / "model.int8.onnx"
    reference = load_embedder().encode(TEXTS, normalize_embeddings=True)
    vectors = OnnxEmbedder(onnx_file, bundled_model_path(), threads=1).encode(TEXTS, batch_size=2)
    assert vectors.shape == reference.shape
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    cosine = (vectors * reference).sum(axis=1)
    assert cosine.min() > 0.97, cosine  # row i is text i although batches are cut longest first
    assert (vectors @ reference.T).argmax(axis=1).tolist() == [0, 1, 2]


@pytest.mark.slow
def test_hybrid_reranks_lexical_candidates_with_onnx_dense(onnx_cache):
    clauses = dict(zip(("law", "pay", "end"), TEXTS, strict=True))
    chunks = chunk_documents(clauses, size=300, overlap=0)
    dense = ChromaRetriever(cache_dir=onnx_cache, model=ONNX_MODEL).build(chunks)
    sims = dense.similarities("which state's legislation applies", [c.id for c in chunks])
    assert int(np.argmax(sims)) == 0
    assert load_embedder(ONNX_MODEL, "cpu", onnx_cache) is load_embedder(ONNX_MODEL, "cpu", onnx_cache)
    with pytest.raises(KeyError, match="not in the dense index"):
        dense.similarities("q", ["nope#0"])
    hybrid = HybridRetriever(cache_dir=onnx_cache, dense_model=ONNX_MODEL, rerank_top=3, k=2).build(chunks)
    assert [h.doc_id for h in hybrid.search("Agreement terminate notice")][0] == "end"
