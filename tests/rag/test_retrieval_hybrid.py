import importlib.util
from pathlib import Path

import pytest

from agenttune.rag.chunking import Chunk, chunk_documents
from agenttune.rag.hybrid import HybridRetriever, reciprocal_rank_fusion
from agenttune.rag.retriever import Hit, Retriever


def hits(*ids):
    return [Hit(i, "d", 1.0, i) for i in ids]


class Fixed(Retriever):
    """A retriever that returns a fixed ranking, to test fusion in isolation."""

    def __init__(self, ranking):
        super().__init__()
        self.ranking = ranking
        self.built = False

    def build(self, chunks: list[Chunk]):
        self.built = True
        return self

    def index_size_bytes(self):
        return 1

    def search(self, query, k=None, doc_id=None):
        return [h for h in self.ranking if doc_id in (None, h.doc_id)][: k or self.k]


def test_rrf_rewards_agreement_between_rankings():
    fused = reciprocal_rank_fusion({"lex": hits("a", "b", "c"), "dense": hits("d", "b", "c")})
    assert [h.chunk_id for h in fused][:2] == ["b", "c"]
    assert {h.chunk_id for h in fused} == {"a", "b", "c", "d"}


def test_weights_tilt_the_fusion():
    rankings = {"lex": hits("a", "b"), "dense": hits("b", "a")}
    assert reciprocal_rank_fusion(rankings, {"lex": 2.0})[0].chunk_id == "a"
    assert reciprocal_rank_fusion(rankings, {"dense": 2.0})[0].chunk_id == "b"
    scores = [h.score for h in reciprocal_rank_fusion(rankings, rrf_k=10)]
    assert scores == sorted(scores, reverse=True)


def test_hybrid_builds_all_parts_and_cuts_at_k():
    parts = {"lex": Fixed(hits("a", "b", "c")), "dense": Fixed(hits("c", "d"))}
    hybrid = HybridRetriever(retrievers=parts, k=2).build([Chunk("a", "d", 0, 1, "x")])
    assert all(p.built for p in parts.values())
    assert [h.chunk_id for h in hybrid.search("q")] == ["c", "a"]
    assert hybrid.index_size_bytes() == 2


def test_hybrid_passes_the_document_scope_and_keeps_offsets():
    ranking = [Hit("a", "d", 1.0, "x", 10, 20), Hit("b", "e", 1.0, "y", 0, 5)]
    hybrid = HybridRetriever(retrievers={"lex": Fixed(ranking)}).build([Chunk("a", "d", 0, 1, "x")])
    assert [(h.chunk_id, h.start, h.end) for h in hybrid.search("q", doc_id="d")] == [("a", 10, 20)]


def test_hybrid_rejects_weights_for_unknown_parts():
    with pytest.raises(ValueError, match="not configured"):
        HybridRetriever(retrievers={"lex": Fixed([])}, weights={"dense": 1.0})


@pytest.mark.slow
def test_hybrid_of_bm25s_and_chroma_on_real_contracts(contracts, tmp_cache):
    chunks = chunk_documents({c.doc_id: c.text for c in contracts[:1]}, size=1000, overlap=100)
    hybrid = HybridRetriever(cache_dir=tmp_cache, k=5).build(chunks)
    results = hybrid.search("governing law of this agreement")
    assert len(results) == 5 and all(h.doc_id == contracts[0].doc_id for h in results)
    again = HybridRetriever(cache_dir=tmp_cache).build(chunks)
    assert all(r.last_build_reused for r in again.retrievers.values())


class Similar(Fixed):
    """A dense stand-in: similarities from a fixed table."""

    def __init__(self, table):
        super().__init__([])
        self.table = table

    def similarities(self, query, chunk_ids):
        return [self.table[c] for c in chunk_ids]


def test_rerank_reorders_only_the_lexical_top_n():
    lexical = Fixed(hits("a", "b", "c", "d"))
    dense = Similar({"a": 0.1, "b": 0.2, "c": 0.9, "d": 1.0})
    parts = {"lex": lexical, "dense": dense}
    hybrid = HybridRetriever(retrievers=parts, rerank_top=3, weights={"lex": 0.0}, k=3).build([])
    assert [h.chunk_id for h in hybrid.search("q")] == ["c", "b", "a"]  # d is not a candidate
    blended = HybridRetriever(retrievers=parts, rerank_top=3, rrf_k=1, weights={"dense": 2.0}, k=3).build([])
    assert [h.chunk_id for h in blended.search("q")] == ["c", "a", "b"]  # 1/4 + 2/2 > 1/2 + 2/4 = 1/3 + 2/3


def test_the_fusion_bench_fuses_as_the_hybrid_retriever_does():
    path = Path(__file__).resolve().parents[2] / "scripts" / "bench" / "fusion.py"
    spec = importlib.util.spec_from_file_location("fusion_bench", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    lexical, dense_ranking = hits("a", "b", "c", "d"), hits("d", "c", "e")
    table = {"a": 0.1, "b": 0.2, "c": 0.9, "d": 1.0}
    by_cosine = sorted(lexical, key=lambda h: -table[h.chunk_id])
    for params in (
        {"weights": {"chroma": 0.5}, "rrf_k": 5},
        {"weights": {"chroma": 2.0}, "rrf_k": 5, "rerank_top": 3},
    ):
        dense = Similar(table)
        dense.ranking = dense_ranking
        hybrid = HybridRetriever(retrievers={"bm25s": Fixed(lexical), "chroma": dense}, k=3, **params).build(
            []
        )
        expected = [h.chunk_id for h in hybrid.search("q")]
        assert bench.fuse(lexical, dense_ranking, by_cosine, **params)[:3] == expected


def test_the_retrieval_config_sets_dense_reranking(monkeypatch, tmp_path):
    from agenttune.benchmarks.search import build_retriever
    from tests.conftest import compose_config

    overrides = [
        "+experiment=cuad_grpo",
        "retrieval=hybrid",
        "retrieval.rerank_top=16",
        "retrieval.weights.bm25s=0",
    ]
    monkeypatch.setattr(HybridRetriever, "build", lambda self, chunks: self)  # no index: only the wiring
    retriever = build_retriever(compose_config(overrides, tmp_path), [])
    assert retriever.rerank_top == 16 and retriever.weights == {"bm25s": 0.0, "chroma": 1.0}
