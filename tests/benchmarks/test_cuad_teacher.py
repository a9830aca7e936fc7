"""The scripted retrieval teacher: it searches, answers only from what it was shown, and its checks sort trajectories."""

from __future__ import annotations

import doctest
from dataclasses import replace

import pytest

from agenttune.agents.episode import run_episodes
from agenttune.agents.strategies import ReAct
from agenttune.benchmarks.cuad import teacher
from agenttune.benchmarks.cuad.categories import DATE_CATEGORIES, QUESTIONS
from agenttune.benchmarks.cuad.teacher import RetrievalTeacher, check_trajectory
from agenttune.config import HarnessConfig
from agenttune.engines.scripted import ScriptedEngine
from agenttune.events.schema import EventKind
from agenttune.harness.search_corpus import SearchCorpusHarness
from agenttune.rag.catalog import DocumentCatalog
from agenttune.rag.chunking import Chunk
from agenttune.rag.questions import QuestionRecord
from agenttune.rag.retriever import Hit
from agenttune.rewards import grounding

CLAUSE = "This Agreement shall be governed by the laws of the State of Nevada."
CONTRACT = f"Payment is due monthly. {CLAUSE} Notices go by mail."
QUESTION = QuestionRecord(
    id="q-law",
    question="Which state's law governs the Supply Agreement between Acme and Beta?",
    answer="This Agreement shall be governed by the laws of the State of Nevada",
    gold_quotes=[CLAUSE],
    gold_chunk_ids=["supply#3"],
    doc_ids=["supply"],
    hops=1,
    category="Governing Law",
    gold_spans=[["supply", 1024 + CONTRACT.index(CLAUSE), 1024 + CONTRACT.index(CLAUSE) + len(CLAUSE)]],
    meta={"contract": "the Supply Agreement between Acme and Beta"},
)
LAW_WORDING = teacher.CLAUSE_WORDING["Governing Law"]
CATALOG = DocumentCatalog(
    [
        Chunk("other#0", "other", 0, 9, "Rent is due.", "Supply Agreement (Omega Inc; Zeta Ltd)"),
        Chunk("supply#3", "supply", 1024, 1024 + len(CONTRACT), CONTRACT, "Supply Agreement (Acme; Beta)"),
    ]
)


class Contracts:
    """A retriever over three contracts: the whole corpus shows ``corpus_text`` from "third" (not a supply
    agreement); a search scoped to "supply" shows the supply contract. Records every (query, doc_id) it was asked."""

    def __init__(self, corpus_text: str = "Rent is due.") -> None:
        self.corpus_text, self.asked = corpus_text, []

    def search(self, query: str, k: int, doc_id: str | None = None) -> list[Hit]:
        self.asked.append((query, doc_id))
        if doc_id == "supply":
            return [Hit("supply#3", "supply", 1.0, CONTRACT, 1024, 1024 + len(CONTRACT))]
        if doc_id is None and self.corpus_text == CONTRACT:
            return [Hit("supply#3", "supply", 1.0, CONTRACT, 1024, 1024 + len(CONTRACT))]
        return [Hit("third#0", "third", 1.0, self.corpus_text, 0, len(self.corpus_text))]


def teacher_episode(tokenizer, question: QuestionRecord, retriever, styles=("question",), max_steps=6):
    cfg = HarnessConfig(name="search_corpus", top_k=2, max_steps=max_steps)
    harness = lambda: SearchCorpusHarness.from_config(retriever, cfg, CATALOG)  # noqa: E731
    engine = ScriptedEngine(RetrievalTeacher([question], styles, max_calls=max_steps - 1), tokenizer)
    (log,) = run_episodes(engine, harness, ReAct(max_turns=max_steps), [question])
    return log


def final_answer(log) -> str:
    return [e.payload.text for e in log.events if e.kind == EventKind.TEXT][-1]


def test_teacher_stops_when_the_first_search_shows_the_clause(tokenizer):
    retriever = Contracts(CONTRACT)
    log = teacher_episode(tokenizer, QUESTION, retriever)
    assert retriever.asked == [(QUESTION.question, None)]
    assert final_answer(log) == f"<answer>{QUESTION.answer}</answer>"  # the gold quote, shown whole
    assert check_trajectory(log, QUESTION) == ""


def test_on_a_miss_it_finds_the_contract_then_searches_inside_it(tokenizer):
    retriever = Contracts()
    log = teacher_episode(tokenizer, QUESTION, retriever)
    calls = [(e.payload.name, e.payload.arguments) for e in log.events if e.kind == EventKind.TOOL_CALL]
    assert calls == [
        ("search", {"query": QUESTION.question}),
        ("find_documents", {"name": "Supply Agreement between Acme and Beta"}),
        ("search_document", {"doc_id": "supply", "query": LAW_WORDING}),
    ]
    assert final_answer(log) == f"<answer>{QUESTION.answer}</answer>"
    assert check_trajectory(log, QUESTION) == ""


def test_it_reformulates_in_the_contract_then_tries_the_next_and_respects_its_budget(tokenizer):
    elsewhere = replace(QUESTION, gold_spans=[["fourth", 0, 10]])
    retriever = Contracts()
    log = teacher_episode(tokenizer, elsewhere, retriever, max_steps=6)
    calls = [(e.payload.name, e.payload.arguments) for e in log.events if e.kind == EventKind.TOOL_CALL]
    assert [name for name, _ in calls] == ["search", "find_documents", *["search_document"] * 3]
    assert [args.get("query") for _, args in calls[2:]] == [LAW_WORDING, "state's law governs", LAW_WORDING]
    assert [args["doc_id"] for _, args in calls[2:]] == ["supply", "supply", "other"]
    short = teacher_episode(tokenizer, elsewhere, Contracts(), max_steps=3)
    calls = [(e.payload.name, e.payload.arguments) for e in short.events if e.kind == EventKind.TOOL_CALL]
    assert calls[1] == ("search", {"query": f"Supply Agreement between Acme and Beta {LAW_WORDING}"})


def test_a_title_alone_is_searched_once_in_each_contract_listed(tokenizer):
    title_only = replace(
        QUESTION,
        question="Which state's or country's law governs the Supply Agreement?",
        gold_spans=[["fourth", 0, 10]],
        meta={"contract": "the Supply Agreement"},
    )
    log = teacher_episode(tokenizer, title_only, Contracts(), max_steps=6)
    calls = [(e.payload.name, e.payload.arguments) for e in log.events if e.kind == EventKind.TOOL_CALL]
    assert calls[1] == (
        "search",
        {"query": f"Supply Agreement {LAW_WORDING}"},
    )  # the clause of any such contract
    assert calls[2] == ("find_documents", {"name": "Supply Agreement"})
    assert sorted(args["doc_id"] for _, args in calls[3:]) == ["other", "supply"]  # both listed, once each
    assert {args["query"] for _, args in calls[3:]} == {LAW_WORDING}
    assert len(calls) == 5  # the budget


def test_a_contract_named_by_its_file_is_searched_without_looking_it_up(tokenizer):
    filed = replace(
        QUESTION,
        question="Who are the parties that signed the Supply Agreement filed as supply?",
        category="Parties",
        gold_spans=[["fourth", 0, 10]],
        meta={"contract": "the Supply Agreement filed as supply"},
    )
    log = teacher_episode(tokenizer, filed, Contracts(), max_steps=6)
    calls = [(e.payload.name, e.payload.arguments) for e in log.events if e.kind == EventKind.TOOL_CALL]
    assert [name for name, _ in calls] == ["search", "search_document", "search_document"]
    assert [args["doc_id"] for _, args in calls[1:]] == ["supply", "supply"]
    assert calls[1][1]["query"] == teacher.CLAUSE_WORDING["Parties"]


def test_every_category_asked_about_has_its_typical_wording():
    asked = set(QUESTIONS) - set(DATE_CATEGORIES)
    assert set(teacher.CLAUSE_WORDING) == asked
    unknown = replace(QUESTION, category="Force Majeure")
    assert teacher.clause_wording(unknown) == "force majeure"  # the category's name as words


def test_questions_that_read_alike_need_teachers_of_their_own():
    twin = replace(QUESTION, id="q-law-2", doc_ids=["other"])
    with pytest.raises(ValueError, match="more than one question reads"):
        RetrievalTeacher([QUESTION, twin])


def test_keyword_queries_drop_stopwords(tokenizer):
    retriever = Contracts(CONTRACT)
    teacher_episode(tokenizer, QUESTION, retriever, styles=("keywords",))
    assert retriever.asked == [("state's law governs supply agreement acme beta", None)]


def test_query_styles_vary_across_questions():
    questions = [replace(QUESTION, id=f"q{i}") for i in range(12)]
    assert {teacher.teacher_query(q) for q in questions} == {
        QUESTION.question,
        "state's law governs supply agreement acme beta",
    }
    with pytest.raises(ValueError, match="unknown query style 'hyde'"):
        teacher.teacher_query(QUESTION, ["hyde"])


def test_checks_reject_unanswered_and_wrong_answers(tokenizer):
    nowhere = replace(QUESTION, gold_spans=[["fourth", 0, 10]], answer="Utah", answer_aliases=[])
    log = teacher_episode(tokenizer, nowhere, Contracts(), max_steps=2)
    assert check_trajectory(log, nowhere) == "schema"  # nothing matched: "I could not find it."
    elsewhere = replace(QUESTION, answer="Delaware courts have exclusive jurisdiction")
    log = teacher_episode(
        tokenizer, elsewhere, Contracts(f"{CLAUSE} Delaware is where notices go."), max_steps=2
    )
    assert check_trajectory(log, elsewhere) == "answer"


def test_min_f1_one_keeps_only_exact_answers(tokenizer):
    longer = replace(QUESTION, answer=f"{CLAUSE[:-1]}, without regard to its conflict of laws rules")
    log = teacher_episode(tokenizer, longer, Contracts(CONTRACT), max_steps=2)
    assert final_answer(log) == f"<answer>{CLAUSE}</answer>"  # the closest sentence shown, not the gold
    assert check_trajectory(log, longer) == ""  # token F1 0.8: kept by default
    assert check_trajectory(log, longer, min_f1=1.0) == "answer"
    assert (
        check_trajectory(teacher_episode(tokenizer, QUESTION, Contracts(CONTRACT)), QUESTION, min_f1=1.0)
        == ""
    )


@pytest.mark.parametrize("module", [teacher, grounding])
def test_docstring_examples(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


def test_unmasked_sft_rows_train_on_the_tool_result_turn_masked_ones_do_not(tokenizer):
    from agenttune.events.projections.sft import sft_row

    log = teacher_episode(tokenizer, QUESTION, Contracts(CONTRACT))
    masked = sft_row(log, tokenizer, {"tool_result": 0.0})
    unmasked = sft_row(log, tokenizer, {"tool_result": 1.0})
    assert masked["input_ids"] == unmasked["input_ids"]
    changed = [
        i for i, (a, b) in enumerate(zip(masked["weights"], unmasked["weights"], strict=True)) if a != b
    ]
    assert changed and all(masked["weights"][i] == 0.0 and unmasked["weights"][i] == 1.0 for i in changed)
    turn = tokenizer.decode([masked["input_ids"][i] for i in changed])
    assert (
        "Payment is due monthly." in turn and "doc_id: supply" in turn
    )  # the search result the tool returned
    for row in (masked, unmasked):  # the answer quoting the clause is trained on in both
        trained = tokenizer.decode(
            [t for t, w in zip(row["input_ids"], row["weights"], strict=True) if w > 0]
        )
        assert f"<answer>{QUESTION.answer}</answer>" in trained


def test_a_clause_split_by_a_page_break_is_quoted_as_the_collapsed_passage_shows_it(tokenizer):
    broken = QUESTION.answer.replace("the laws", "the\n\n\n\n\nlaws")
    contract = CONTRACT.replace(QUESTION.answer, broken)
    spread = replace(
        QUESTION, answer=broken, gold_quotes=[broken], gold_spans=[["supply", 1024, 1024 + len(contract)]]
    )
    retriever = Contracts()
    retriever.search = lambda query, k, doc_id=None: [
        Hit("supply#3", "supply", 1.0, contract, 1024, 1024 + len(contract))
    ]
    cfg = HarnessConfig(name="search_corpus", top_k=1, max_steps=3, snippet_collapse_whitespace=True)
    harness = lambda: SearchCorpusHarness.from_config(retriever, cfg, CATALOG)  # noqa: E731
    engine = ScriptedEngine(RetrievalTeacher([spread], max_calls=2), tokenizer)
    (log,) = run_episodes(engine, harness, ReAct(max_turns=3), [spread])
    # the gold quote as shown (it stops before the sentence's full stop), not the best sentence
    assert final_answer(log) == f"<answer>{QUESTION.answer}</answer>"
    assert check_trajectory(log, spread, min_f1=1.0) == ""
