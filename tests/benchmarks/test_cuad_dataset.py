import json

import pytest

from agenttune.benchmarks.cuad.dataset import corpus_for, cuad_questions, dataset_rows
from agenttune.rag.questions import write_jsonl


def test_in_process_questions_and_their_corpus_agree():
    questions = cuad_questions("single_hop", "validation", limit=5)
    assert len(questions) == 5 and {q.split for q in questions} == {"validation"}
    assert questions == cuad_questions("single_hop", "validation", limit=5)
    chunks = corpus_for(questions, max_docs=1)
    chunk_ids = {c.id for c in chunks}
    assert all(set(q.gold_chunk_ids) <= chunk_ids for q in questions)
    assert {c.doc_id for c in chunks} == {d for q in questions for d in q.doc_ids}
    rows = dataset_rows(questions)
    assert rows[0]["gold_chunk_ids"] == questions[0].gold_chunk_ids and rows[0]["hops"] == 1


def test_a_saved_set_is_read_and_its_chunking_checked(tmp_path):
    questions = cuad_questions("single_hop", "all", limit=6)
    for split in ("train", "validation"):
        write_jsonl([q for q in questions if q.split == split], tmp_path / "single_hop" / f"{split}.jsonl")
    (tmp_path / "manifest.json").write_text(json.dumps({"chunk_size": 1000, "chunk_overlap": 200}))
    assert cuad_questions("single_hop", "all", questions_dir=tmp_path) == sorted(
        questions, key=lambda q: q.id
    )
    with pytest.raises(ValueError, match="chunk_size"):
        cuad_questions("single_hop", "train", questions_dir=tmp_path, chunk_size=500)
