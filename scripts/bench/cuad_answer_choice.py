"""Where a CUAD answer goes wrong: the policy's log-probability of the gold answer against that of its own answer.

Exact match needs a gold answer shown whole (``quote_shown``) and then copied from its first word to its last. For
each episode of a run's evaluation phase whose results showed a gold answer verbatim (the clause quote, one of
several quotes, or a short answer such as "New York"), this scores two continuations of the episode's answer turn
after its ``<answer>`` tag, under the run's policy in float32: the gold answer and the policy's own answer, each
closed by ``</answer>``. For each: the total and mean log-probability, the tokens, and the first token's
log-probability. A gold answer that costs little a token after its first, against a first token that costs much,
says that the policy copies well once started and misses where to start.

    python scripts/bench/cuad_answer_choice.py outputs/cuad_grpo/runs/<run>
    python scripts/bench/cuad_answer_choice.py <run> --phase eval_warm --checkpoint checkpoints/distill/final

Prints a table and writes JSON (default ``outputs/bench/cuad_answer_choice.json``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import torch
from omegaconf import OmegaConf
from transformers import AutoModelForCausalLM, AutoTokenizer

from agenttune.benchmarks.cuad.dataset import cuad_questions
from agenttune.engines.extractive import CLOSE, OPEN
from agenttune.engines.templates import encode, render
from agenttune.events.io import read_jsonl
from agenttune.events.projections.messages import chat_messages
from agenttune.events.schema import EventKind, EventLog
from agenttune.tracking.run import hardware

REPO_ROOT = Path(__file__).resolve().parents[2]


def continuation_logprobs(model, prefix: list[int], ids: list[int]) -> torch.Tensor:
    """The log-probability of each of ``ids`` after ``prefix``."""
    with torch.no_grad():
        logits = model(torch.tensor([prefix + ids])).logits[0, len(prefix) - 1 : -1]
    return torch.log_softmax(logits.float(), dim=-1)[torch.arange(len(ids)), torch.tensor(ids)]


def summary(logprobs: torch.Tensor, text: str) -> dict:
    return {
        "text": text,
        "tokens": len(logprobs),
        "sum": round(logprobs.sum().item(), 3),
        "mean": round(logprobs.mean().item(), 3),
        "first": round(logprobs[0].item(), 3),
        "mean_after_first": round(logprobs[1:].mean().item(), 3) if len(logprobs) > 1 else None,
    }


def answer_turn(log: EventLog) -> tuple[int, str, str] | None:
    """(index of the final text event, its text before ``<answer>``, the answer) or None when it gave none."""
    last = max((i for i, e in enumerate(log.events) if e.kind == EventKind.TEXT), default=None)
    if last is None or OPEN not in log.events[last].payload.text:
        return None
    before, after = log.events[last].payload.text.split(OPEN, 1)
    return last, before, after.split(CLOSE, 1)[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a CUAD run folder (outputs/cuad_grpo/runs/<run>)")
    parser.add_argument("--phase", default="eval_after", help="the evaluation phase whose EventLogs to read")
    parser.add_argument("--checkpoint", default="checkpoints/final", help="the policy, relative to the run")
    parser.add_argument(
        "--out", type=Path, default=REPO_ROOT / "outputs" / "bench" / "cuad_answer_choice.json"
    )
    args = parser.parse_args()

    bench = OmegaConf.load(args.run / ".hydra" / "config.yaml").benchmark
    questions = cuad_questions(
        bench.question_set,
        bench.split,
        chunk_size=bench.chunk_size,
        chunk_overlap=bench.chunk_overlap,
        limit=bench.eval_offset + bench.num_eval,
        seed=bench.seed,
        style=bench.question_style,
    )
    by_id = {q.id: q for q in questions}
    torch.set_num_threads(min(2, torch.get_num_threads()))
    tokenizer = AutoTokenizer.from_pretrained(args.run / args.checkpoint)
    model = AutoModelForCausalLM.from_pretrained(args.run / args.checkpoint, dtype=torch.float32).eval()

    episodes = []
    for log in read_jsonl(args.run / "eventlogs" / f"{args.phase}.jsonl").logs:
        question = by_id[log.task_id]
        shown = [e.payload.content for e in log.events if e.kind == EventKind.TOOL_RESULT]
        golds = [g for g in [question.answer, *question.answer_aliases] if g and any(g in s for s in shown)]
        turn = answer_turn(log)
        if not golds or turn is None:
            continue
        last, before, answer = turn
        prompt = render(tokenizer, chat_messages(log, upto=last), log.tools, add_generation_prompt=True)
        prefix = encode(tokenizer, prompt + before + OPEN)
        scored = {
            name: summary(continuation_logprobs(model, prefix, encode(tokenizer, text + CLOSE)), text)
            for name, text in (("gold", golds[0]), ("policy", answer))
        }
        episodes.append({"task_id": log.task_id, "question": question.question, **scored})

    lines = [
        "| question | gold: tokens, sum, first, mean after first | policy's answer: the same | policy's answer |",
        "| --- | --- | --- | --- |",
    ]
    for e in episodes:
        g, p = e["gold"], e["policy"]
        cells = [
            f"{s['tokens']}, {s['sum']:.1f}, {s['first']:.2f}, {s['mean_after_first'] or 0:.2f}"
            for s in (g, p)
        ]
        lines.append(f"| {e['question'][:60]} | {cells[0]} | {cells[1]} | {p['text'][:50]!r} |")
    table = "\n".join(lines)
    print(table)
    print(f"{len(episodes)} episodes showed a gold answer whole and answered")
    report = {
        "setup": {
            "run": str(args.run),
            "phase": args.phase,
            "checkpoint": args.checkpoint,
            "hardware": hardware(),
        },
        "episodes": episodes,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report | {"table": table}, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
