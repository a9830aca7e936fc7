import sys

import pytest

from agenttune.rag.chroma import ChromaRetriever
from agenttune.rag.chunking import Chunk, chunk_documents
from agenttune.rag.embeddings import bundled_model_path


def test_the_embedding_model_ships_in_a_package():
    assert (bundled_model_path() / "model.safetensors").is_file()


def test_a_missing_chromadb_names_the_rag_extra(monkeypatch, tmp_cache):
    monkeypatch.setitem(sys.modules, "chromadb", None)
    with pytest.raises(ImportError, match=r"\.\[rag\]"):
        ChromaRetriever(cache_dir=tmp_cache).build([Chunk("d#0", "d", 0, 1, "x")])


CLAUSES = {
    "law": "This Agreement shall be governed by and construed in accordance with the laws of Nevada.",
    "pay": "Licensee shall pay all invoices within thirty days of receipt.",
    "end": "Either party may terminate this Agreement upon ninety days written notice.",
    "nda": "Each party shall keep the other party's confidential information secret.",
}


@pytest.mark.slow
def test_dense_index_finds_paraphrases_and_is_reused(tmp_cache):
    chunks = chunk_documents(CLAUSES, size=200, overlap=0)
    retriever = ChromaRetriever(cache_dir=tmp_cache, k=2).build(chunks)
    assert retriever.search("which state's legislation applies to the contract")[0].doc_id == "law"
    assert retriever.search("when are bills due")[0].doc_id == "pay"
    again = ChromaRetriever(cache_dir=tmp_cache).build(chunks)
    assert again.last_build_reused and again.build_count == 0
