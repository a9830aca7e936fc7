import pytest

from agenttune.rag.bm25 import Bm25sRetriever
from agenttune.rag.chunking import chunk_documents
from agenttune.rag.sqlite_fts import SqliteFtsRetriever


@pytest.mark.parametrize("backend", [SqliteFtsRetriever, Bm25sRetriever])
def test_index_is_reused_and_rebuilt_when_the_corpus_or_chunking_changes(backend, contracts, tmp_cache):
    documents = {c.doc_id: c.text for c in contracts[:2]}
    chunks = chunk_documents(documents, size=800, overlap=100)

    first = backend(cache_dir=tmp_cache).build(chunks)
    assert (first.build_count, first.last_build_reused) == (1, False)
    built_at = (first.index_dir / "index_done.json").stat().st_mtime_ns

    again = backend(cache_dir=tmp_cache).build(chunks)
    assert (again.build_count, again.last_build_reused) == (0, True)
    assert again.index_dir == first.index_dir
    assert (again.index_dir / "index_done.json").stat().st_mtime_ns == built_at
    assert again.search("agreement")[0].chunk_id == first.search("agreement")[0].chunk_id

    rechunked = backend(cache_dir=tmp_cache).build(chunk_documents(documents, size=600, overlap=100))
    edited = {**documents, next(iter(documents)): next(iter(documents.values())) + " appended"}
    changed = backend(cache_dir=tmp_cache).build(chunk_documents(edited, size=800, overlap=100))
    headed = chunk_documents(documents, size=800, overlap=100, headers={d: "Title" for d in documents})
    with_headers = backend(cache_dir=tmp_cache).build(headed)
    for retriever in (rechunked, changed, with_headers):
        assert (retriever.build_count, retriever.last_build_reused) == (1, False)
        assert retriever.index_dir != first.index_dir


def test_an_unfinished_index_is_rebuilt(contracts, tmp_cache):
    chunks = chunk_documents({contracts[0].doc_id: contracts[0].text}, size=800, overlap=100)
    first = SqliteFtsRetriever(cache_dir=tmp_cache).build(chunks)
    (first.index_dir / "index_done.json").unlink()
    assert SqliteFtsRetriever(cache_dir=tmp_cache).build(chunks).last_build_reused is False


def test_search_before_build_and_empty_corpus_fail_clearly(tmp_cache):
    with pytest.raises(RuntimeError, match="build"):
        SqliteFtsRetriever(cache_dir=tmp_cache).search("x")
    with pytest.raises(ValueError, match="empty"):
        SqliteFtsRetriever(cache_dir=tmp_cache).build([])
