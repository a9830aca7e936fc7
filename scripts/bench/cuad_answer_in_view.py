"""How often a CUAD gold answer is in view: shown, word for word, in what a search returns.

Exact match needs the gold answer (the clause quote, any one of several quotes, or the short answer such as "New
York") somewhere in what the agent was shown. For the first ``--questions`` single-hop validation questions (the
main job's 32 by default) this measures that share for a search with the question's own text, under several ways of
showing hits (passages of ``snippet_chars`` around the query words, with and without the contract's name in the
query that places them, run on to the end of the sentence they cut or not, or whole chunks), and, with
``--eventlog``, for the episodes of a run's evaluation phase: as they were shown, and with their own queries searched
again under each way of showing hits. Matching is on SQuAD-normalised text, as exact match scores.

    python scripts/bench/cuad_answer_in_view.py
    python scripts/bench/cuad_answer_in_view.py --questions 512
    python scripts/bench/cuad_answer_in_view.py --eventlog outputs/cuad_grpo/runs/<run>/eventlogs/eval_after.jsonl

Prints a table and writes JSON (default ``outputs/bench/cuad_answer_in_view.json``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from agenttune.benchmarks.cuad.dataset import corpus_for, cuad_questions
from agenttune.events.io import read_jsonl
from agenttune.events.schema import EventKind
from agenttune.harness.search_corpus import shown_part
from agenttune.rag.backends import make_retriever
from agenttune.rag.questions import QuestionRecord
from agenttune.rewards.answer import normalize_answer
from agenttune.tracking.run import hardware

REPO_ROOT = Path(__file__).resolve().parents[2]
# (name, passages shown a search, characters a passage (0: the whole chunk), place windows without the contract's
# name, run a passage on to the end of the sentence it cuts: harness.snippet_finish_sentence)
VIEWS = [
    ("4 x 500 chars (the main job, the study)", 4, 500, False, False),
    ("4 x 500 chars, placed without the contract's name", 4, 500, True, False),
    ("4 x 500 chars, sentence finished", 4, 500, False, True),
    ("4 x 600 chars, sentence finished", 4, 600, False, True),
    ("4 x 700 chars", 4, 700, False, False),
    ("2 whole chunks", 2, 0, False, False),
    ("4 whole chunks", 4, 0, False, False),
]


def in_view(question: QuestionRecord, shown: str) -> bool:
    """Whether a gold answer of ``question`` occurs in ``shown`` (both SQuAD-normalised)."""
    text = normalize_answer(shown)
    golds = (normalize_answer(g) for g in [question.answer, *question.answer_aliases])
    return any(gold and gold in text for gold in golds)


def share(questions: dict[str, QuestionRecord], shown: dict[str, str]) -> dict[str, float]:
    """How many of the episodes (task id -> all the text they were shown) had a gold answer in view, and the share."""
    found = sum(in_view(questions[task_id], text) for task_id, text in shown.items())
    return {"in_view": found, "share": found / max(len(shown), 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=32)
    parser.add_argument("--eventlog", type=Path, help="an evaluation phase's EventLogs (the same questions)")
    parser.add_argument(
        "--out", type=Path, default=REPO_ROOT / "outputs" / "bench" / "cuad_answer_in_view.json"
    )
    args = parser.parse_args()

    questions = cuad_questions(
        "single_hop", "validation", chunk_size=1200, chunk_overlap=200, limit=args.questions
    )
    retriever = make_retriever("bm25s", k=8).build(corpus_for(questions, None, 1200, 200))
    by_id = {q.id: q for q in questions}
    hits = {q.id: retriever.search(q.question, k=4) for q in questions}
    results = {}
    for name, k, chars, without_name, finish in VIEWS:
        shown = {}
        for q in questions:
            placed_by = q.question.replace(q.meta["contract"], " ") if without_name else q.question
            shown[q.id] = " ".join(shown_part(h, placed_by, chars, finish).text for h in hits[q.id][:k])
        results[name] = share(by_id, shown)
    if args.eventlog is not None:
        logs = [log for log in read_jsonl(args.eventlog).logs if log.task_id in by_id]
        shown = {
            log.task_id: " ".join(e.payload.content for e in log.events if e.kind == EventKind.TOOL_RESULT)
            for log in logs
        }
        queries = {
            log.task_id: [
                e.payload.arguments.get("query", "")
                for e in log.events
                if e.kind == EventKind.TOOL_CALL and e.payload.name == "search"
            ]
            for log in logs
        }
        results[f"episodes of {args.eventlog}, as shown"] = share(by_id, shown)
        for name, k, chars, _, finish in (view for view in VIEWS if not view[3]):
            replayed = {
                task_id: " ".join(
                    shown_part(h, query, chars, finish).text
                    for query in task_queries
                    for h in retriever.search(query, k=k)
                )
                for task_id, task_queries in queries.items()
            }
            results[f"episodes' queries, {name}"] = share(by_id, replayed)

    lines = [f"| shown ({len(questions)} questions) | gold answer in view | share |", "| --- | --- | --- |"]
    lines += [f"| {name} | {r['in_view']} | {r['share']:.3f} |" for name, r in results.items()]
    table = "\n".join(lines)
    print(table)
    report = {
        "setup": {"questions": len(questions), "backend": "bm25s", "hardware": hardware()},
        "results": results,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report | {"table": table}, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
