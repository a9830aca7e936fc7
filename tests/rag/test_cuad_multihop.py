import json
from dataclasses import dataclass

import pytest

from agenttune.benchmarks.cuad.data import load_contracts
from agenttune.benchmarks.cuad.graph import INVERSE, TEMPLATES, build_cuad_graph, party_key
from agenttune.rag.splits import shared_gold
from agenttune.rag.synthesis.checks import has_unique_answer, needs_retrieval, unnecessary_hops
from agenttune.rag.synthesis.generators import GeneratedQuestion, LLMQuestionGenerator, TemplateGenerator
from agenttune.rag.synthesis.graph import EvidenceGraph, Node
from agenttune.rag.synthesis.paths import follow, walks
from agenttune.rag.synthesis.pipeline import SynthesisConfig, synthesize

LAW = ("party_to", "governed_by")


@dataclass
class Generation:
    text: str


def toy_graph() -> EvidenceGraph:
    """Acme signed C1 (Delaware) and C2 (Delaware); Bolt signed only C3 (Texas)."""
    graph = EvidenceGraph(inverse=INVERSE)
    for node in [
        Node("party:acme", "party", "Acme"),
        Node("party:bolt", "party", "Bolt"),
        Node("jurisdiction:delaware", "jurisdiction", "Delaware"),
        Node("jurisdiction:texas", "jurisdiction", "Texas"),
        *(Node(f"contract:c{i}", "contract", f"Agreement {i}") for i in (1, 2, 3)),
    ]:
        graph.add_node(node)
    graph.add_edge("contract:c1", "has_party", "party:acme", ["c1#0"])
    graph.add_edge("contract:c2", "has_party", "party:acme", ["c2#0"])
    graph.add_edge("contract:c3", "has_party", "party:bolt", ["c3#0"])
    graph.add_edge("contract:c1", "governed_by", "jurisdiction:delaware", ["c1#5"])
    graph.add_edge("contract:c2", "governed_by", "jurisdiction:delaware", ["c2#5"])
    graph.add_edge("contract:c3", "governed_by", "jurisdiction:texas", ["c3#5"])
    return graph


def test_a_path_with_a_detour_around_a_hop_is_rejected():
    graph = toy_graph()
    acme = walks(graph, "party:acme", LAW)
    assert follow(graph, "party:acme", LAW) == {"jurisdiction:delaware"}
    assert all(has_unique_answer(graph, p) for p in acme)
    # C2 also leads Acme to Delaware, so dropping the C1 passages leaves the answer reachable.
    assert all(unnecessary_hops(graph, p) for p in acme)
    (bolt,) = walks(graph, "party:bolt", LAW)
    assert unnecessary_hops(graph, bolt) == [] and has_unique_answer(graph, bolt)


def test_removing_evidence_removes_the_edges_it_alone_supports():
    graph = toy_graph()
    assert follow(graph, "party:bolt", LAW, removed=frozenset({"c3#5"})) == set()
    assert follow(graph, "party:acme", LAW, removed=frozenset({"c1#0"})) == {"jurisdiction:delaware"}


def test_paths_never_revisit_a_node():
    graph = toy_graph()
    assert follow(graph, "party:acme", ("party_to", "has_party")) == set()


def test_retrieval_must_be_needed():
    assert not needs_retrieval("Is Delaware law the governing law?", "Delaware")
    assert not needs_retrieval("Which law governs?", "New York", closed_book=lambda q: "new york")
    assert needs_retrieval("Which law governs?", "Nevada", closed_book=lambda q: "New York")


def test_generators_answer_with_the_path_end():
    graph = toy_graph()
    (path,) = walks(graph, "party:bolt", LAW)
    generated = TemplateGenerator(TEMPLATES)(path, graph)
    assert generated.answer == "Texas" and "Bolt" in generated.question

    class Engine:
        def generate(self, conversations):
            assert "Bolt" in conversations[0][-1]["content"]
            return [Generation('Sure: {"question": "Whose law governs the deal Bolt signed?"}')]

    llm = LLMQuestionGenerator(Engine())(path, graph)
    assert llm == GeneratedQuestion("Whose law governs the deal Bolt signed?", "Texas", (), "llm")


def test_party_key_merges_spellings():
    assert party_key("NETGEAR, Inc.") == party_key("Netgear Inc") == "netgear"


@pytest.fixture(scope="module")
def synthesized(tmp_path_factory):
    """The pipeline over 60 contracts (a corner of CUAD with parties shared between contracts)."""
    contracts = [c for c in load_contracts() if c.doc_id.upper().startswith(("N", "F", "B", "V"))][:60]
    out = tmp_path_factory.mktemp("multihop")
    graph = build_cuad_graph(contracts, chunk_size=1000, chunk_overlap=200)
    records = synthesize(
        graph, TEMPLATES, TemplateGenerator(TEMPLATES), out, SynthesisConfig(max_per_bucket=50)
    )
    return graph, records, out


def test_pipeline_output_passes_every_check(synthesized):
    graph, records, out = synthesized
    assert records and {r.split for r in records} == {"train", "validation"}
    assert shared_gold(records) == set()
    for r in records:
        assert 2 <= r.hops <= 5 and r.answer and r.gold_chunk_ids
        assert needs_retrieval(r.question, r.answer)
        answer_texts = " ".join(graph.chunk_text[c] for c in r.gold_chunk_ids).lower()
        assert r.answer.lower() in answer_texts or r.answer_aliases
        assert {graph.chunk_doc[c] for c in r.gold_chunk_ids} == set(r.doc_ids)
    for stage in ("01_paths", "02_generated", "03_checked", "04_balanced", "05_split"):
        manifest = json.loads((out / stage / "manifest.json").read_text())
        assert manifest["total"] >= len(records) or stage == "05_split"
    assert json.loads((out / "05_split" / "manifest.json").read_text())["shared_gold_chunks"] == 0


def test_an_engine_failure_is_raised_not_read_as_no_question():
    from agenttune.engines.base import Generation as EngineGeneration

    graph = toy_graph()
    (path,) = walks(graph, "party:bolt", LAW)

    class Down:
        def generate(self, conversations):
            return [EngineGeneration.failed("endpoint down")]

    with pytest.raises(RuntimeError, match="question generator's engine failed: endpoint down"):
        LLMQuestionGenerator(Down())(path, graph)
