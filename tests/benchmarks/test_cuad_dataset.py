import json

import pytest

from agenttune.benchmarks.cuad.dataset import corpus_for, cuad_questions, dataset_rows
from agenttune.rag.questions import write_jsonl


@pytest.fixture(scope="module")
def all_questions():
    """Every single-hop question, built in-process once for this module."""
    return cuad_questions("single_hop", "all")


def test_in_process_questions_and_their_corpus_agree(all_questions):
    assert [q.id for q in all_questions] == sorted(q.id for q in all_questions)
    questions = [q for q in all_questions if q.split == "validation"][:5]
    chunks = corpus_for(questions, max_docs=1)
    chunk_ids = {c.id for c in chunks}
    assert all(set(q.gold_chunk_ids) <= chunk_ids for q in questions)
    assert {c.doc_id for c in chunks} == {d for q in questions for d in q.doc_ids}
    assert all(c.header for c in chunks)
    rows = dataset_rows(questions)
    assert rows[0]["gold_chunk_ids"] == questions[0].gold_chunk_ids and rows[0]["hops"] == 1


def test_a_saved_set_is_read_and_its_chunking_checked(all_questions, tmp_path):
    questions = all_questions[:6]
    for split in ("train", "validation"):
        write_jsonl([q for q in questions if q.split == split], tmp_path / "single_hop" / f"{split}.jsonl")
    (tmp_path / "manifest.json").write_text(json.dumps({"chunk_size": 1000, "chunk_overlap": 200}))
    assert cuad_questions("single_hop", "all", questions_dir=tmp_path) == questions
    assert cuad_questions("single_hop", "all", questions_dir=tmp_path, limit=2) == questions[:2]
    with pytest.raises(ValueError, match="chunk_size"):
        cuad_questions("single_hop", "train", questions_dir=tmp_path, chunk_size=500)


def test_an_unknown_question_set_is_named():
    import pytest

    from agenttune.benchmarks.cuad.dataset import cuad_questions

    with pytest.raises(ValueError, match="unknown question set 'three_hop'"):
        cuad_questions("three_hop")
