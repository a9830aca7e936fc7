import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agenttune.rag.chunking import chunk_documents
from agenttune.rag.sqlite_fts import SqliteFtsRetriever, fts_query


@pytest.fixture(scope="module")
def fts(contracts, tmp_path_factory):
    chunks = chunk_documents({c.doc_id: c.text for c in contracts}, size=800, overlap=100)
    return SqliteFtsRetriever(cache_dir=tmp_path_factory.mktemp("cache"), k=5).build(chunks)


def test_fts_query_quotes_every_term():
    assert fts_query('a "b" OR c*') == '"a" OR "b" OR "or" OR "c"'
    assert fts_query("?!:()") == ""


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=80))
def test_model_written_queries_never_raise(fts, query):
    assert len(fts.search(query)) <= 5


@pytest.mark.parametrize("query", ["NEAR(a b)", 'title:"x', "' OR 1=1 --", "a AND", "*", '"""', "ü^~ß"])
def test_fts_syntax_in_queries_is_harmless(fts, query):
    fts.search(query)


def test_search_finds_the_contract_named_in_the_query(fts, contracts):
    contract = contracts[0]
    hits = fts.search(f"{contract.party_names[0]} governing law")
    assert hits and hits[0].doc_id == contract.doc_id
    assert hits == sorted(hits, key=lambda h: -h.score)


def test_headers_are_searched_but_not_returned(tmp_cache):
    text = "Licensee shall pay royalties quarterly."
    chunks = chunk_documents({"d": text}, headers={"d": "Zephyr Widgets supply agreement"})
    (hit,) = SqliteFtsRetriever(cache_dir=tmp_cache).build(chunks).search("zephyr")
    assert hit.text == text == chunks[0].text
