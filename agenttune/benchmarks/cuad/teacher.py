"""A scripted retrieval teacher for distillation, and the checks its trajectories must pass to be kept.

The teacher is privileged the way an oracle is: it knows each question's gold answer, but it can only answer with
what its search showed. It searches once, then answers with the sentence of the shown passages that has the
highest token F1 with the gold answer. Its query is the question itself or the question's content words (one
style per question, fixed by a hash of its id), so that a student distilled from it has more than one way to
search and RL samples from it differ. It sees exactly what a student sees (the same harness), so a kept
trajectory is one a student could imitate. Checks (:func:`check_trajectory`):

- schema: no ERROR event, at least one well-formed tool call and a final answer;
- grounding: the answer occurs verbatim in a tool result the episode was shown;
- answer: token F1 with the gold answer at least ``min_f1``.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from typing import Any

from agenttune.events.projections.evaluator import evaluator_input
from agenttune.events.schema import EventKind, EventLog
from agenttune.rag.questions import QuestionRecord
from agenttune.rewards.answer import extract_answer, token_f1
from agenttune.rewards.grounding import content_word_list

HIT_HEADER = re.compile(r"^\[\d+\] chunk_id: .*$", re.MULTILINE)
SENTENCE_END = re.compile(r"(?<=[.;:])\s+|\n\s*\n")
QUERY_STYLES = ("question", "keywords")


def teacher_query(question: QuestionRecord, styles: Sequence[str] = QUERY_STYLES) -> str:
    """The teacher's search query for ``question``: its text, or its content words, chosen by a hash of its id.

    >>> q = QuestionRecord("q1", "Who may terminate the lease?", "", [], [], [], 1, "Termination")
    >>> teacher_query(q, ["keywords"]), teacher_query(q, ["question"])
    ('terminate lease', 'Who may terminate the lease?')
    """
    style = styles[zlib.crc32(question.id.encode()) % len(styles)]
    if style == "keywords":
        return " ".join(content_word_list(question.question)) or question.question
    if style == "question":
        return question.question
    raise ValueError(f"unknown query style {style!r}; known: {QUERY_STYLES}")


def best_sentence(passages: str, gold: Sequence[str]) -> str:
    """The sentence of a search result (headers removed) with the highest token F1 against ``gold`` ('' if none)."""
    sentences = [
        s.strip() for part in HIT_HEADER.split(passages) for s in SENTENCE_END.split(part) if s.strip()
    ]
    scored = [(token_f1(s, gold), -i, s) for i, s in enumerate(sentences)]
    best = max(scored, default=(0.0, 0, ""))
    return best[2] if best[0] > 0 else ""


class RetrievalTeacher:
    """The teacher policy for ``ScriptedEngine(RetrievalTeacher(questions), tokenizer)``: search, then answer."""

    def __init__(
        self, questions: Sequence[QuestionRecord], query_styles: Sequence[str] = QUERY_STYLES
    ) -> None:
        self.gold = {q.question: [q.answer, *q.answer_aliases] for q in questions}
        self.query = {q.question: teacher_query(q, query_styles) for q in questions}

    def __call__(
        self, conversation: list[dict[str, Any]], tools: list[dict[str, Any]] | None
    ) -> dict[str, Any]:
        question = next(m["content"] for m in conversation if m["role"] == "user")
        results = [m["content"] for m in conversation if m["role"] == "tool"]
        if not results:
            call = {
                "type": "function",
                "function": {"name": "search", "arguments": {"query": self.query[question]}},
            }
            return {"role": "assistant", "content": "", "tool_calls": [call]}
        answer = best_sentence(results[-1], self.gold[question])
        return {
            "role": "assistant",
            "content": f"<answer>{answer}</answer>" if answer else "I could not find it.",
        }


def check_trajectory(log: EventLog, question: QuestionRecord, min_f1: float = 0.3) -> str:
    """'' when the trajectory passes every check, else the name of the first failed check."""
    record = evaluator_input(log)
    answer = extract_answer(record["final_answer"])
    if any(e.kind == EventKind.ERROR for e in log.events) or not record["tool_calls"] or not answer:
        return "schema"
    shown = [
        e.payload.content for e in log.events if e.kind == EventKind.TOOL_RESULT and not e.payload.is_error
    ]
    if not any(answer in text for text in shown):
        return "grounding"
    if token_f1(answer, [question.answer, *question.answer_aliases]) < min_f1:
        return "answer"
    return ""
