import pytest

from agenttune.benchmarks.cuad.categories import DATE_CATEGORIES, QUESTIONS
from agenttune.benchmarks.cuad.corpus import select_doc_ids
from agenttune.benchmarks.cuad.questions import build_single_hop_questions
from agenttune.rag.chunking import chunk_text
from agenttune.rag.questions import read_jsonl, write_jsonl


def test_gold_chunks_hold_each_quote_exactly(contracts):
    questions = build_single_hop_questions(contracts, chunk_size=800, chunk_overlap=100)
    assert questions and all(q.category in QUESTIONS and q.category not in DATE_CATEGORIES for q in questions)
    for contract in contracts:
        chunks = {c.id: c for c in chunk_text(contract.doc_id, contract.text, 800, 100)}
        for q in (q for q in questions if q.doc_ids == [contract.doc_id]):
            gold = [chunks[c] for c in q.gold_chunk_ids]
            for quote, (doc_id, start, end) in zip(q.gold_quotes, q.gold_spans, strict=True):
                assert doc_id == contract.doc_id and contract.text.count(quote) == 1
                assert contract.text[start:end] == quote
                holding = [c for c in gold if c.start < end and c.end > start]
                assert min(c.start for c in holding) <= start and max(c.end for c in holding) >= end


def test_questions_name_their_contract_but_not_the_quote(contracts):
    for q in build_single_hop_questions(contracts):
        contract = next(c for c in contracts if c.doc_id == q.doc_ids[0])
        assert contract.title in q.question or contract.party_names[0] in q.question
        assert q.answer not in q.question


def test_split_is_by_document_and_round_trips(contracts, tmp_path):
    questions = build_single_hop_questions(contracts, val_fraction=0.5, seed=1)
    by_doc = {}
    for q in questions:
        by_doc.setdefault(q.doc_ids[0], set()).add(q.split)
    assert all(len(splits) == 1 for splits in by_doc.values())
    assert read_jsonl(write_jsonl(questions, tmp_path / "q.jsonl")) == questions


def test_corpus_subset_keeps_required_docs_and_is_deterministic():
    ids = [f"d{i}" for i in range(50)]
    first = select_doc_ids(ids, max_docs=10, required=["d42", "d7"], seed=3)
    assert first[:2] == ["d42", "d7"] and len(first) == 10
    assert first == select_doc_ids(ids, max_docs=10, required=["d42", "d7"], seed=3)
    assert first != select_doc_ids(ids, max_docs=10, required=["d42", "d7"], seed=4)
    assert len(select_doc_ids(ids, max_docs=1, required=["d1", "d2"])) == 2


def test_title_only_questions_drop_the_parties_but_keep_ids_and_splits(contracts):
    both = build_single_hop_questions(contracts, seed=2)
    title = build_single_hop_questions(contracts, seed=2, style="title")
    assert [(q.id, q.split, q.answer) for q in both] == [(q.id, q.split, q.answer) for q in title]
    for q in title:
        contract = next(c for c in contracts if c.doc_id == q.doc_ids[0])
        assert q.meta["contract"] in q.question
        if q.category not in ("Document Name", "Parties") and contract.party_names:
            assert q.meta["contract"] == f"the {contract.title}" and " between " not in q.question
    with pytest.raises(ValueError, match="unknown question style 'parties'"):
        build_single_hop_questions(contracts[:1], style="parties")
