"""The scripted retrieval teacher: it searches, answers only from what it was shown, and its checks sort trajectories."""

from __future__ import annotations

import doctest
from dataclasses import replace

import pytest

from agenttune.agents.episode import run_episodes
from agenttune.agents.strategies import ReAct
from agenttune.benchmarks.cuad import teacher
from agenttune.benchmarks.cuad.teacher import RetrievalTeacher, check_trajectory
from agenttune.config import HarnessConfig
from agenttune.engines.scripted import ScriptedEngine
from agenttune.events.schema import EventKind
from agenttune.harness.search_corpus import SearchCorpusHarness
from agenttune.rag.questions import QuestionRecord
from agenttune.rag.retriever import Hit
from agenttune.rewards import grounding

CLAUSE = "This Agreement shall be governed by the laws of the State of Nevada."
QUESTION = QuestionRecord(
    id="q-law",
    question="Which state's law governs the Supply Agreement between Acme and Beta?",
    answer="This Agreement shall be governed by the laws of the State of Nevada",
    gold_quotes=[CLAUSE],
    gold_chunk_ids=["supply#3"],
    doc_ids=["supply"],
    hops=1,
    category="Governing Law",
)


class OneContract:
    """A retriever over one contract; records every query it was asked."""

    def __init__(self, text: str) -> None:
        self.text, self.queries = text, []

    def search(self, query: str, k: int) -> list[Hit]:
        self.queries.append(query)
        return [Hit("supply#3", "supply", 1.0, self.text)]


def teacher_episode(tokenizer, question: QuestionRecord, contract: str, styles=("question",)):
    retriever = OneContract(contract)
    harness = lambda: SearchCorpusHarness.from_config(  # noqa: E731
        retriever, HarnessConfig(name="search_corpus", top_k=2, max_steps=3)
    )
    engine = ScriptedEngine(RetrievalTeacher([question], query_styles=styles), tokenizer)
    (log,) = run_episodes(engine, harness, ReAct(max_turns=3), [question])
    return log, retriever.queries


def test_teacher_searches_then_quotes_the_best_shown_sentence(tokenizer):
    log, queries = teacher_episode(
        tokenizer, QUESTION, f"Payment is due monthly. {CLAUSE} Notices go by mail."
    )
    assert queries == [QUESTION.question]
    kinds = [e.kind for e in log.events if e.actor == "agent"]
    assert kinds.index(EventKind.TOOL_CALL) < kinds.index(EventKind.TEXT)
    final = [e.payload.text for e in log.events if e.kind == EventKind.TEXT][-1]
    assert final == f"<answer>{CLAUSE}</answer>"
    assert check_trajectory(log, QUESTION) == ""


def test_keyword_queries_drop_stopwords(tokenizer):
    _, queries = teacher_episode(tokenizer, QUESTION, CLAUSE, styles=("keywords",))
    assert queries == ["state's law governs supply agreement acme beta"]


def test_query_styles_vary_across_questions():
    questions = [replace(QUESTION, id=f"q{i}") for i in range(12)]
    assert {teacher.teacher_query(q) for q in questions} == {
        QUESTION.question,
        "state's law governs supply agreement acme beta",
    }
    with pytest.raises(ValueError, match="unknown query style 'hyde'"):
        teacher.teacher_query(QUESTION, ["hyde"])


def test_checks_reject_unanswered_and_wrong_answers(tokenizer):
    log, _ = teacher_episode(tokenizer, QUESTION, "Payment is due monthly.")
    assert check_trajectory(log, QUESTION) == "schema"  # nothing matched: "I could not find it."
    elsewhere = replace(QUESTION, answer="Delaware courts have exclusive jurisdiction")
    log, _ = teacher_episode(tokenizer, elsewhere, f"{CLAUSE} Delaware is where notices go.")
    assert check_trajectory(log, elsewhere) == "answer"


@pytest.mark.parametrize("module", [teacher, grounding])
def test_docstring_examples(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


def test_unmasked_sft_rows_train_on_the_tool_result_turn_masked_ones_do_not(tokenizer):
    from agenttune.events.projections.sft import sft_row

    log, _ = teacher_episode(tokenizer, QUESTION, f"Payment is due monthly. {CLAUSE}")
    masked = sft_row(log, tokenizer, {"tool_result": 0.0})
    unmasked = sft_row(log, tokenizer, {"tool_result": 1.0})
    assert masked["input_ids"] == unmasked["input_ids"]
    changed = [
        i for i, (a, b) in enumerate(zip(masked["weights"], unmasked["weights"], strict=True)) if a != b
    ]
    assert changed and all(masked["weights"][i] == 0.0 and unmasked["weights"][i] == 1.0 for i in changed)
    turn = tokenizer.decode([masked["input_ids"][i] for i in changed])
    assert "Payment is due monthly." in turn and "supply#3" in turn  # the search result the tool returned
    for row in (masked, unmasked):  # the answer quoting the clause is trained on in both
        trained = tokenizer.decode(
            [t for t, w in zip(row["input_ids"], row["weights"], strict=True) if w > 0]
        )
        assert f"<answer>{CLAUSE}</answer>" in trained
