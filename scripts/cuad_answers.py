"""Each CUAD episode's question, gold answer and answer, and where the answer was copied from.

For an evaluation of a CUAD run (``<run>/eventlogs/<phase>.jsonl``) it prints one block per episode: exact match
and ``quote_shown`` as the benchmark scores them (:func:`agenttune.benchmarks.cuad.metrics.episode_scores`), where
the answer's text occurs (:func:`answer_origin`: one search result, else the question, else neither: the system
prompt, or a copy that runs across two parts of the prompt), the question, the first gold answer and the answer;
then the counts. With extractive answers an answer is a verbatim span of the turn's prompt, so "question" means the
student quoted the question back (a party's name for a title, say) instead of a passage.

    python scripts/cuad_answers.py outputs/cuad_grpo/runs/<run> eval_after
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from omegaconf import OmegaConf

from agenttune.benchmarks.base import load_benchmark
from agenttune.benchmarks.cuad.metrics import episode_scores
from agenttune.engines.extractive import collapse
from agenttune.events.io import read_jsonl
from agenttune.events.projections.evaluator import evaluator_input
from agenttune.events.schema import EventKind
from agenttune.rewards.answer import extract_answer


def answer_origin(answer: str, question: str, shown: list[str]) -> str:
    """Where ``answer`` occurs, whitespace runs matched as one space: ``result`` (one of the ``shown`` tool
    results), else ``question``, else ``neither``; ``none`` for an empty answer."""
    if not answer:
        return "none"
    text = collapse(answer)
    if any(text in collapse(result) for result in shown):
        return "result"
    return "question" if text in collapse(question) else "neither"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a CUAD run folder (outputs/cuad_grpo/runs/<run>)")
    parser.add_argument(
        "phase", help="the evaluation whose EventLog to read (eval_warm, eval_after, eval, ...)"
    )
    parser.add_argument("--width", type=int, default=100, help="characters of each text shown")
    args = parser.parse_args()

    config = OmegaConf.load(args.run / ".hydra" / "config.yaml")
    # the run's held-out questions, as its evaluations drew them
    questions = load_benchmark(config).tasks("eval")
    by_id = {question.id: question for question in questions}
    counts: Counter[str] = Counter()
    for log in read_jsonl(args.run / "eventlogs" / f"{args.phase}.jsonl").logs:
        question = by_id[log.task_id]
        scores = episode_scores(log, question)
        shown = [event.payload.content for event in log.events if event.kind == EventKind.TOOL_RESULT]
        answer = extract_answer(evaluator_input(log)["final_answer"])  # as episode_scores reads it
        origin = answer_origin(answer, question.question, shown)
        counts.update({"episodes": 1, "em": scores["em"], "quote_shown": scores["quote_shown"], origin: 1})
        flags = (
            f"{'EM' if scores['em'] else '  '} {'shown' if scores['quote_shown'] else '     '} {origin:8s}"
        )
        print(f"{flags} Q: {question.question[: args.width]}")
        print(f"{' ' * len(flags)} gold:   {question.answer[: args.width]!r}")
        print(f"{' ' * len(flags)} answer: {answer[: args.width]!r}")
    print(", ".join(f"{name} {count:g}" for name, count in counts.items()))


if __name__ == "__main__":
    main()
