"""harness=search_corpus: search the corpus, find documents by name, search one document; results name each
passage's document and character range, and the log records what was shown."""

import pytest

from agenttune.config import HarnessConfig
from agenttune.events.projections.evaluator import evaluator_input
from agenttune.events.schema import Event, EventLog, TextPayload, ToolCallPayload
from agenttune.harness.search_corpus import SearchCorpusHarness, shown_part
from agenttune.harness.tools_harness import Question
from agenttune.rag.catalog import DocumentCatalog
from agenttune.rag.chunking import Chunk
from agenttune.rag.retriever import Hit

TASK = Question(id="q1", question="Which state's law governs the lease?")


class FakeRetriever:
    """Returns one 100-character chunk per query word; records each (k, doc_id) it was asked for."""

    def __init__(self) -> None:
        self.asked: list[tuple[int, str | None]] = []

    def search(self, query: str, k: int, doc_id: str | None = None) -> list[Hit]:
        self.asked.append((k, doc_id))
        doc = doc_id or "lease doc"
        texts = [f"Clause about {word}." for word in query.split()]
        hits = [
            Hit(f"{doc}#{i}", doc, 3.0 - i, text, 100 * i, 100 * i + len(text))
            for i, text in enumerate(texts)
        ]
        return hits[:k]


CATALOG = DocumentCatalog(
    [
        Chunk("lease doc#0", "lease doc", 0, 5, "x", "Office Lease (Acme Corp; Beta LLC)"),
        Chunk("supply#0", "supply", 0, 5, "y", "Supply Agreement (Gamma Inc; Delta Ltd)"),
    ]
)


def call(tool: str, call_id: str, **arguments) -> Event:
    return Event(payload=ToolCallPayload(call_id=call_id, name=tool, arguments=arguments))


def search(query: str, call_id: str) -> Event:
    return call("search", call_id, query=query)


def make(tools=("search",), **kwargs) -> SearchCorpusHarness:
    cfg = HarnessConfig(name="search_corpus", top_k=2, max_steps=4, tools=list(tools), **kwargs)
    harness = SearchCorpusHarness.from_config(FakeRetriever(), cfg, CATALOG)
    harness.reset(TASK)
    return harness


@pytest.fixture
def harness() -> SearchCorpusHarness:
    return make()


def test_exposes_the_configured_tools():
    (schema,) = make().tool_schemas()
    assert schema["function"]["name"] == "search"
    assert list(schema["function"]["parameters"]["properties"]) == ["query"]
    names = [
        s["function"]["name"] for s in make(["search", "find_documents", "search_document"]).tool_schemas()
    ]
    assert names == ["search", "find_documents", "search_document"]
    with pytest.raises(ValueError, match="choose one or more of"):
        make(["grep"])
    with pytest.raises(ValueError, match="need a document catalog"):
        SearchCorpusHarness(FakeRetriever(), tools=["search", "search_document"])


def test_results_name_document_and_range_and_are_recorded(harness):
    result = harness.step(search("governing law state", "s1"))
    (event,) = result.observations
    assert event.payload.call_id == "s1" and not event.payload.is_error
    assert event.payload.content.splitlines()[:2] == [
        "[1] doc_id: lease doc | chars 0-23",
        "Clause about governing.",
    ]
    assert (
        "[2] doc_id: lease doc | chars 100-117" in event.payload.content
        and "[3]" not in event.payload.content
    )
    assert harness.retriever.asked == [(2, None)]
    assert result.info["searches"] == 1
    assert result.info["step_chunk_ids"] == ["lease doc#0", "lease doc#1"]
    assert event.payload.metadata == {
        "retrieved_ids": ["lease doc#0", "lease doc#1"],
        "doc_ids": ["lease doc", "lease doc"],
        "spans": [["lease doc", 0, 23], ["lease doc", 100, 117]],
        "query": "governing law state",
    }


def test_snippets_show_the_window_of_the_query_words_with_its_range():
    harness = make(snippet_chars=10)
    (event,) = harness.step(search("governing", "s1")).observations
    assert event.payload.content == "[1] doc_id: lease doc | chars 13-23\ngoverning."
    assert event.payload.metadata["spans"] == [["lease doc", 13, 23]]


def test_a_snippet_may_run_on_to_the_end_of_its_sentence():
    clause = "The laws of Nevada govern this lease."
    text = f"Preamble text here, and more of it. {clause} Notices go by mail to the tenant."
    hit = Hit("lease doc#3", "lease doc", 1.0, text, 1000, 1000 + len(text))
    cut = shown_part(hit, "which law governs the lease", 40)
    whole = shown_part(hit, "which law governs the lease", 40, finish_sentence=True)
    assert cut.text.endswith("govern this") and whole.text.endswith(clause)
    assert (whole.start, whole.end) == (cut.start, 1000 + text.index(clause) + len(clause))
    cfg = HarnessConfig(name="search_corpus", top_k=1, snippet_chars=40, snippet_finish_sentence=True)
    retriever = FakeRetriever()
    retriever.search = lambda query, k, doc_id=None: [hit]
    harness = SearchCorpusHarness.from_config(retriever, cfg, CATALOG)
    harness.reset(TASK)
    (event,) = harness.step(search("which law governs the lease", "s1")).observations
    assert event.payload.content.endswith(clause)  # the config option reaches the search results


def test_find_documents_then_search_one_of_them():
    harness = make(["search", "find_documents", "search_document"])
    (found,) = harness.step(call("find_documents", "f1", name="Acme lease")).observations
    assert (
        found.payload.content.splitlines()[0] == "[1] doc_id: lease doc | Office Lease (Acme Corp; Beta LLC)"
    )
    assert found.payload.metadata == {"doc_ids": ["lease doc"], "query": "Acme lease"}
    scoped = harness.step(call("search_document", "d1", doc_id="supply", query="price"))
    assert scoped.observations[0].payload.content.startswith("[1] doc_id: supply | chars 0-19")
    assert harness.retriever.asked == [(2, "supply")]
    assert scoped.info["searches"] == 2 and scoped.info["step_chunk_ids"] == ["supply#0"]
    (missing,) = harness.step(call("search_document", "d2", doc_id="lease", query="rent")).observations
    assert missing.payload.is_error and "no document with doc_id 'lease'" in missing.payload.content
    nothing = harness.step(call("find_documents", "f2", name="zzz")).observations[0].payload.content
    assert nothing == "No documents match 'zzz'. Try other words."


def test_info_accumulates_searches_and_unique_chunk_ids(harness):
    harness.step(search("governing law", "s1"))
    second = harness.step(search("a b c", "s2"))
    assert second.info["searches"] == 2
    assert second.info["retrieved_chunk_ids"] == ["lease doc#0", "lease doc#1"]
    failed = harness.step(Event(payload=ToolCallPayload(call_id="s3", name="search", arguments={})))
    assert failed.observations[0].payload.is_error
    assert (failed.info["searches"], failed.info["step_chunk_ids"]) == (2, [])


def test_no_hits_is_a_normal_result(harness):
    result = harness.step(search("", "s1"))
    assert result.observations[0].payload.content == "No passages match ''. Try other words."
    assert result.info["searches"] == 1 and result.info["retrieved_chunk_ids"] == []


def test_answer_ends_the_episode_and_max_steps_applies(harness):
    final = harness.step(Event(payload=TextPayload(text="<answer>Nevada</answer>")))
    assert final.done and final.info["termination"] == "answer"
    harness.reset(TASK)
    results = [harness.step(search("law", f"s{i}")) for i in range(4)]
    assert [r.done for r in results] == [False, False, False, True]
    assert results[-1].info["termination"] == "max_steps"


def test_restore_reverts_the_search_record(harness):
    harness.step(search("governing", "s1"))
    snapshot = harness.snapshot()
    harness.step(search("a b", "s2"))
    harness.restore(snapshot)
    result = harness.step(search("governing", "s3"))
    assert (result.info["searches"], result.info["retrieved_chunk_ids"]) == (2, ["lease doc#0"])


def test_evidence_reaches_the_evaluator_projection(harness):
    events = harness.reset(TASK)
    for action in [
        search("law state", "s1"),
        search("x", "s2"),
        Event(payload=TextPayload(text="<answer>NV</answer>")),
    ]:
        events += [action, *harness.step(action).observations]
    record = evaluator_input(EventLog(id="e1", events=events))
    assert record["retrieved_ids"] == ["lease doc#0", "lease doc#1"]
    assert [c["name"] for c in record["tool_calls"]] == ["search", "search"]
    assert record["final_answer"] == "<answer>NV</answer>"


def test_collapsed_whitespace_shows_a_page_break_as_one_space_and_keeps_the_text_offsets():
    text = "a non-transferable license to use its trademarks, service\n\n\n\n\n\nmarks, and logos"
    hit = Hit("lease doc#3", "lease doc", 1.0, text, 500, 500 + len(text))
    retriever = FakeRetriever()
    retriever.search = lambda query, k, doc_id=None: [hit]
    shown = {}
    for collapse in (False, True):
        cfg = HarnessConfig(name="search_corpus", top_k=1, snippet_collapse_whitespace=collapse)
        harness = SearchCorpusHarness.from_config(retriever, cfg, CATALOG)
        harness.reset(TASK)
        (event,) = harness.step(search("trademarks", "s1")).observations
        shown[collapse] = event.payload
    assert "service\n\n\n\n\n\nmarks" in shown[False].content
    assert shown[True].content.endswith("trademarks, service marks, and logos")
    assert (
        shown[True].metadata["spans"]
        == shown[False].metadata["spans"]
        == [["lease doc", 500, 500 + len(text)]]
    )
