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


@pytest.mark.slow
def test_dense_index_finds_paraphrases_and_is_reused(contracts, tmp_cache):
    contract = contracts[0]
    chunks = chunk_documents({contract.doc_id: contract.text}, size=1000, overlap=100)
    retriever = ChromaRetriever(cache_dir=tmp_cache, k=3).build(chunks)
    law_chunk = next(c.id for c in chunks if "governed by and construed" in c.text)
    assert law_chunk in [
        h.chunk_id for h in retriever.search("which state's legislation applies to this contract")
    ]
    again = ChromaRetriever(cache_dir=tmp_cache).build(chunks)
    assert again.last_build_reused and again.build_count == 0
