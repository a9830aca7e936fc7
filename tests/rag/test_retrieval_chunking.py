from hypothesis import given
from hypothesis import strategies as st

from agenttune.rag.chunking import chunk_documents, chunk_text, covering_chunks


@given(
    text=st.text(alphabet=st.sampled_from("ab \n."), min_size=0, max_size=400),
    size=st.integers(5, 60),
    overlap_share=st.floats(0, 0.9),
)
def test_chunks_keep_exact_offsets_and_cover_the_text(text, size, overlap_share):
    overlap = int(size * overlap_share)
    chunks = chunk_text("doc", text, size=size, overlap=overlap)
    assert all(c.text == text[c.start : c.end] and 0 < c.end - c.start <= size for c in chunks)
    assert [c.id for c in chunks] == [f"doc#{i}" for i in range(len(chunks))]
    if text:
        assert chunks[0].start == 0 and chunks[-1].end == len(text)
        assert all(b.start <= a.end and b.start > a.start for a, b in zip(chunks, chunks[1:], strict=False))


def test_real_contract_chunks_match_the_text(contracts):
    documents = {c.doc_id: c.text for c in contracts}
    chunks = chunk_documents(documents, size=700, overlap=100)
    assert {c.doc_id for c in chunks} == set(documents)
    assert all(documents[c.doc_id][c.start : c.end] == c.text for c in chunks)


@given(start=st.integers(0, 299), length=st.integers(1, 200))
def test_covering_chunks_cover_any_span_minimally(start, length):
    text = "word " * 60
    end = min(start + length, len(text))
    chunks = chunk_text("d", text, size=50, overlap=10)
    cover = covering_chunks(chunks, start, end)
    covered = set().union(*(range(c.start, c.end) for c in cover))
    assert set(range(start, end)) <= covered
    assert len(cover) == 1 or all(c.end < end for c in cover[:-1])
