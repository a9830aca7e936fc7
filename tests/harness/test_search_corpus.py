"""harness=search_corpus: one search tool over any retriever, with retrieved chunk ids recorded for rewards."""

import pytest

from agenttune.config import HarnessConfig
from agenttune.events.projections.evaluator import evaluator_input
from agenttune.events.schema import Event, EventLog, TextPayload, ToolCallPayload
from agenttune.harness.search_corpus import SearchCorpusHarness
from agenttune.harness.tools_harness import Question
from agenttune.rag.retriever import Hit

TASK = Question(id="q1", question="Which state's law governs the lease?")


class FakeRetriever:
    """Returns chunks of the words in the query; records the k it was asked for."""

    def __init__(self) -> None:
        self.ks: list[int] = []

    def search(self, query: str, k: int) -> list[Hit]:
        self.ks.append(k)
        hits = [
            Hit(f"lease doc#{i}", "lease doc", 3.0 - i, f"Clause about {word}.")
            for i, word in enumerate(query.split())
        ]
        return hits[:k]


def search(query: str, call_id: str) -> Event:
    return Event(payload=ToolCallPayload(call_id=call_id, name="search", arguments={"query": query}))


@pytest.fixture
def harness() -> SearchCorpusHarness:
    harness = SearchCorpusHarness.from_config(
        FakeRetriever(), HarnessConfig(name="search_corpus", top_k=2, max_steps=4)
    )
    harness.reset(TASK)
    return harness


def test_exposes_exactly_one_search_tool(harness):
    (schema,) = harness.tool_schemas()
    assert schema["function"]["name"] == "search"
    assert list(schema["function"]["parameters"]["properties"]) == ["query"]


def test_results_are_numbered_chunks_with_ids_and_recorded_in_info(harness):
    result = harness.step(search("governing law state", "s1"))
    (event,) = result.observations
    assert event.payload.call_id == "s1" and not event.payload.is_error
    assert event.payload.content.splitlines()[:2] == [
        "[1] chunk_id: lease doc#0 | doc_id: lease doc | score: 3.000",
        "Clause about governing.",
    ]
    assert "[2] chunk_id: lease doc#1" in event.payload.content and "[3]" not in event.payload.content
    assert harness.retriever.ks == [2]
    assert result.info["searches"] == 1
    assert result.info["step_chunk_ids"] == ["lease doc#0", "lease doc#1"]
    assert event.payload.metadata == {
        "retrieved_ids": ["lease doc#0", "lease doc#1"],
        "doc_ids": ["lease doc", "lease doc"],
        "query": "governing law state",
    }


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
