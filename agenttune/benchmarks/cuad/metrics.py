"""Episode metrics of the search agent from its EventLogs: answer EM/F1, tool calls, evidence found.

``searches_per_question`` counts every tool call (``search``, ``find_documents``, ``search_document``).
``recall@8`` is the share of a question's gold chunks among the chunks the episode's searches returned (each
search returns the top ``harness.top_k`` = 8), ``hit@8`` whether at least one was returned; ``span_hit@8`` whether
a passage the episode was shown (with ``harness.snippet_chars`` set, the snippet, not the whole chunk) shares a
character with a gold quote, ``quote_shown`` whether one passage showed a gold quote whole (so the quote could be
copied: with extractive answers, the ceiling of exact match), and ``evidence`` the share of the gold quotes'
characters it was shown (the evidence reward). ``tool_call_rate`` is the share of episodes that called a tool at all. A multi-hop question's scores
are also reported under ``hops<n>/`` for its hop count, so ``benchmark.question_set=multi_hop`` reads per hop count.
"""

from __future__ import annotations

from collections.abc import Sequence

from agenttune.benchmarks.search import shown_spans
from agenttune.events.projections.evaluator import evaluator_input
from agenttune.events.schema import EventKind, EventLog
from agenttune.rag import spans
from agenttune.rag.questions import QuestionRecord
from agenttune.rewards.answer import exact_match, extract_answer, token_f1
from agenttune.rewards.cuad_search import coverage


def episode_scores(log: EventLog, question: QuestionRecord) -> dict[str, float]:
    record = evaluator_input(log)
    answer = extract_answer(record["final_answer"])
    golds = [question.answer, *question.answer_aliases]
    found = set(question.gold_chunk_ids) & set(record["retrieved_ids"])
    shown = shown_spans(log)
    scores = {
        "em": exact_match(answer, golds),
        "f1": token_f1(answer, golds),
        "searches_per_question": float(len(record["tool_calls"])),
        "recall@8": coverage(question.gold_chunk_ids, record["retrieved_ids"]),
        "hit@8": float(bool(found)),
        "span_hit@8": float(spans.touches(question.gold_spans, shown)),
        "quote_shown": float(spans.holds_whole(question.gold_spans, shown)),
        "evidence": spans.recall(question.gold_spans, shown),
        "tool_call_rate": float(bool(record["tool_calls"])),
        "answered_rate": float(bool(answer)),
        "errors_per_question": float(sum(e.kind == EventKind.ERROR for e in log.events)),
    }
    if question.hops > 1:
        scores |= {f"hops{question.hops}/{name}": value for name, value in list(scores.items())}
    return scores


def search_scores(logs: Sequence[EventLog], questions: Sequence[QuestionRecord]) -> list[dict[str, float]]:
    """Each episode's scores, in log order; logs and questions are matched by task id."""
    by_id = {q.id: q for q in questions}
    missing = [log.task_id for log in logs if log.task_id not in by_id]
    if missing:
        raise KeyError(f"logs of unknown questions: {missing[:3]}")
    return [episode_scores(log, by_id[log.task_id]) for log in logs]
