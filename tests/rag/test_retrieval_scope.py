"""Every lexical backend returns each hit's character range and can search one document only; the catalogue
finds documents by title and parties."""

import pytest

from agenttune.benchmarks.cuad.corpus import contract_header
from agenttune.rag.backends import make_retriever
from agenttune.rag.catalog import DocumentCatalog
from agenttune.rag.chunking import chunk_documents


@pytest.fixture(scope="module")
def chunks(contracts):
    texts = {c.doc_id: c.text for c in contracts}
    headers = {c.doc_id: contract_header(c) for c in contracts}
    return chunk_documents(texts, 800, 100, headers)


@pytest.mark.parametrize("backend", ["bm25s", "sqlite_fts"])
def test_hits_carry_offsets_and_the_scope_keeps_one_document(backend, chunks, contracts, tmp_path):
    retriever = make_retriever(backend, cache_dir=tmp_path, k=8).build(chunks)
    texts = {c.doc_id: c.text for c in contracts}
    everywhere = retriever.search("agreement party terminate notice")
    assert len({h.doc_id for h in everywhere}) > 1
    assert all(texts[h.doc_id][h.start : h.end] == h.text for h in everywhere)
    target = contracts[1].doc_id
    scoped = retriever.search("agreement party terminate notice", doc_id=target)
    assert scoped and {h.doc_id for h in scoped} == {target}
    assert retriever.search("agreement", doc_id="no such contract") == []


def test_catalog_finds_a_contract_by_its_parties(contracts, chunks):
    catalog = DocumentCatalog(chunks)
    assert len(catalog) == len(contracts) and contracts[0].doc_id in catalog
    for contract in contracts:
        (best, *_) = catalog.find(" ".join(contract.party_names[:2]))
        assert best.doc_id == contract.doc_id and best.header == contract_header(contract)
    assert catalog.find("zzzqqq") == []
    with pytest.raises(ValueError, match="at least one chunk"):
        DocumentCatalog([])
