import json

import pytest

from agenttune.benchmarks.cuad.data import filename_key
from agenttune.benchmarks.legalbench_rag.corpus import (
    DISTRACTOR_PREFIX,
    documents_with_distractors,
    legalbench_chunks,
)
from agenttune.benchmarks.legalbench_rag.data import load_official, load_sample
from agenttune.benchmarks.legalbench_rag.metrics import doc_at_k, evaluate_doc_at_k
from agenttune.rag.retriever import Hit
from agenttune.rag.sqlite_fts import SqliteFtsRetriever


def test_sample_loads_four_corpora_with_their_documents():
    sets = {s.name: s for s in load_sample()}
    assert set(sets) == {"cuad", "maud", "contractnli", "privacy_qa"}
    for bench in sets.values():
        assert len(bench.queries) == 50
        assert all(q.gold_files[0] in bench.documents and q.reference_answer for q in bench.queries)


@pytest.fixture
def official_root(tmp_path):
    corpus = tmp_path / "corpus" / "nda"
    corpus.mkdir(parents=True)
    (corpus / "a.txt").write_text("The receiving party shall keep all Confidential Information secret.")
    (corpus / "b.txt").write_text("This policy explains how we collect cookies and location data.")
    tests = {
        "tests": [
            {
                "query": "Must confidential information be kept secret?",
                "snippets": [{"file_path": "nda/a.txt", "span": [0, 40]}],
            },
            {
                "query": "Does the app collect location data?",
                "snippets": [{"file_path": "nda/b.txt", "span": [30, 62]}],
            },
        ]
    }
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "tiny.json").write_text(json.dumps(tests))
    return tmp_path


def test_official_layout_loads_spans_and_documents(official_root):
    (bench,) = load_official(official_root)
    assert bench.name == "tiny" and set(bench.documents) == {"nda/a.txt", "nda/b.txt"}
    assert bench.queries[1].gold_spans == [("nda/b.txt", 30, 62)]
    assert bench.queries[0].gold_files == ["nda/a.txt"]


def test_doc_at_8_on_the_official_fixture_with_distractors(official_root, tmp_cache):
    (bench,) = load_official(official_root)
    chunks = legalbench_chunks(bench, n_distractors=3, chunk_size=500, chunk_overlap=50)
    assert sum(c.doc_id.startswith(DISTRACTOR_PREFIX) for c in chunks) > 0
    retriever = SqliteFtsRetriever(cache_dir=tmp_cache).build(chunks)
    assert evaluate_doc_at_k(retriever, bench.queries, k=8) == {"doc@8": 1.0, "queries": 2.0}


def test_doc_at_k_counts_only_the_top_k():
    ranked = [Hit(f"x#{i}", "x", 1.0, "") for i in range(8)] + [Hit("g#0", "g", 0.1, "")]
    assert doc_at_k(ranked, ["g"], k=8) == 0.0
    assert doc_at_k(ranked, ["g"], k=9) == 1.0


def test_distractors_never_duplicate_the_sets_own_cuad_documents():
    (cuad,) = load_sample(corpora=["cuad"])
    documents = documents_with_distractors(cuad, n_distractors=505)
    distractors = [d.removeprefix(DISTRACTOR_PREFIX) for d in documents if d.startswith(DISTRACTOR_PREFIX)]
    own = {filename_key(d.rsplit("/", 1)[-1]) for d in cuad.documents}
    assert len(distractors) == 505 and not own & {filename_key(d) for d in distractors}


def test_sample_gold_spans_are_the_passages_the_reference_answers_quote():
    sets = {s.name: s for s in load_sample()}
    for bench in sets.values():
        with_spans = [q for q in bench.queries if q.gold_spans]
        assert len(with_spans) >= 20
        for q in with_spans:
            for doc, start, end in q.gold_spans:
                words = bench.documents[doc][start:end].split()
                assert doc == q.gold_files[0] and len(words) >= 4
                assert words[1] in q.reference_answer  # the quote is the answer's


def test_ranked_scores_follow_the_papers_span_definitions():
    from agenttune.benchmarks.legalbench_rag.metrics import ranked_scores

    gold = [("g", 100, 200)]
    passages = [("x", 0, 100), ("g", 50, 150), ("g", 150, 350)]
    scores = ranked_scores(passages, ["g"], gold, ks=(1, 2, 3, 64))
    assert (scores["doc@1"], scores["doc@2"]) == (0.0, 1.0)
    assert (scores["recall@1"], scores["recall@2"], scores["recall@3"]) == (0.0, 0.5, 1.0)
    assert scores["precision@2"] == 50 / 200 and scores["precision@3"] == 100 / 400
    assert scores["recall@64"] == 1.0
    assert "recall@1" not in ranked_scores(passages, ["g"], [], ks=(1,))


def test_policy_scores_count_the_passages_shown_and_do_not_pad_beyond_them(tmp_path):
    from agenttune.benchmarks.base import load_benchmark
    from agenttune.benchmarks.legalbench_rag.metrics import ranked_scores
    from agenttune.events.schema import Event, EventLog, ToolCallPayload, ToolResultPayload
    from tests.conftest import compose_config

    overrides = [
        "+experiment=legalbench_rag_transfer",
        "benchmark.corpora=[maud]",
        "benchmark.distractor_docs=2",
    ]
    benchmark = load_benchmark(compose_config(overrides, tmp_path))
    task = next(t for t in benchmark.tasks("eval") if t.gold_spans)
    harness = benchmark.harness(task)
    events, spans = [], []
    for i, query in enumerate([task.question, "merger agreement termination fee"]):
        result = harness.search(query)  # a real search of the corpus's index: 8 passages
        spans += result.metadata["spans"]
        events += [
            Event(payload=ToolCallPayload(call_id=f"c{i}", name="search", arguments={"query": query})),
            Event(payload=ToolResultPayload(call_id=f"c{i}", name="search", content=str(result), metadata=result.metadata), actor="tool"),
        ]  # fmt: skip
    silent = EventLog(id="silent", task_id=task.id)
    (scores, none) = benchmark.episode_scores(
        [EventLog(id="two", task_id=task.id, events=events), silent], [task]
    )
    assert (
        scores["maud/searches_per_question"] == 2.0
        and scores["maud/passages_shown"] == len(spans) == 2 * harness.top_k
    )
    expected = ranked_scores(spans, task.gold_files, task.gold_spans)
    assert {m: scores[f"maud/{m}"] for m in expected} == expected
    for metric in ("doc", "precision", "recall"):  # beyond the 8 shown: the scores of those 8, not padded
        assert scores[f"maud/{metric}@64"] == scores[f"maud/{metric}@16"] == scores[f"maud/{metric}@8"]
    assert none["maud/passages_shown"] == 0.0 and none["maud/recall@64"] == none["maud/precision@64"] == 0.0
    assert none["maud/retriever_doc@64"] == scores["maud/retriever_doc@64"]


def test_the_transfer_evaluation_gives_the_policy_the_harness_it_was_trained_in(tmp_path):
    from tests.conftest import compose_config

    fields = ("tools", "top_k", "snippet_chars", "max_steps")
    trained = compose_config(["+experiment=cuad_grpo"], tmp_path).harness
    transfer = compose_config(["+experiment=legalbench_rag_transfer"], tmp_path).harness
    assert {f: transfer[f] for f in fields} == {f: trained[f] for f in fields}
