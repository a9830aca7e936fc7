"""Episode metrics of the search agent from its EventLogs: answer EM/F1, searches, evidence recall and hits.

``recall@8`` is the share of a question's gold chunks among the chunks the episode's searches returned (each
search returns the top ``harness.top_k`` = 8), averaged over questions; ``hit@8`` the share of questions with at
least one gold chunk returned. ``tool_call_rate`` is the share of episodes that called a tool at all.
"""

from __future__ import annotations

from collections.abc import Sequence

from agenttune.events.projections.evaluator import evaluator_input
from agenttune.events.schema import EventKind, EventLog
from agenttune.rag.questions import QuestionRecord
from agenttune.rewards.answer import exact_match, extract_answer, token_f1
from agenttune.rewards.cuad_search import coverage


def episode_scores(log: EventLog, question: QuestionRecord) -> dict[str, float]:
    record = evaluator_input(log)
    answer = extract_answer(record["final_answer"])
    golds = [question.answer, *question.answer_aliases]
    searches = sum(call["name"] == "search" for call in record["tool_calls"])
    found = set(question.gold_chunk_ids) & set(record["retrieved_ids"])
    return {
        "em": exact_match(answer, golds),
        "f1": token_f1(answer, golds),
        "searches_per_question": float(searches),
        "recall@8": coverage(question.gold_chunk_ids, record["retrieved_ids"]),
        "hit@8": float(bool(found)),
        "tool_call_rate": float(bool(record["tool_calls"])),
        "answered_rate": float(bool(answer)),
        "errors_per_question": float(sum(e.kind == EventKind.ERROR for e in log.events)),
    }


def search_scores(logs: Sequence[EventLog], questions: Sequence[QuestionRecord]) -> list[dict[str, float]]:
    """Each episode's scores, in log order; logs and questions are matched by task id."""
    by_id = {q.id: q for q in questions}
    missing = [log.task_id for log in logs if log.task_id not in by_id]
    if missing:
        raise KeyError(f"logs of unknown questions: {missing[:3]}")
    return [episode_scores(log, by_id[log.task_id]) for log in logs]
