"""Where a CUAD answer goes wrong: the policy's log-probability of the gold answer against that of its own answer.

Exact match needs a gold answer shown whole (``quote_shown``) and then copied from its first word to its last. For
each episode of a run's evaluation phase whose results showed a gold answer verbatim (the clause quote, one of
several quotes, or a short answer such as "New York"), this scores two continuations of the episode's answer turn
after its ``<answer>`` tag, under the run's policy in float32: the gold answer and the policy's own answer, each
closed by ``</answer>``. For each: the total and mean log-probability, the tokens, and the first token's
log-probability. A gold answer that costs little a token after its first, against a first token that costs much,
says that the policy copies well once started and misses where to start.

With ``--beams N`` it also decodes each such answer block with beam search of width N under the same extractive
constraint (:class:`~agenttune.engines.extractive.ExtractiveAnswers`, through transformers'
``prefix_allowed_tokens_fn``; beams ranked by their total log-probability unless ``--length-penalty`` says
otherwise) and reports the exact match of the greedy answer and of the beam's: how many exact matches a decode that
scores whole answers would find that greedy decoding loses at the first token.

With ``--spans N`` it scores every run of 1 to N consecutive sentences of the passages shown (split as the teacher
splits them), each closed by ``</answer>``, and ranks them by their mean log-probability a token: the answers a decode
that picks whole sentences with a length-normalised score would choose from. It reports whether a gold answer is
among them, its best rank, and whether the top span is an exact match.

    python scripts/bench/cuad_answer_choice.py outputs/cuad_grpo/runs/<run>
    python scripts/bench/cuad_answer_choice.py outputs/cuad_grpo/runs/<run> --beams 4
    python scripts/bench/cuad_answer_choice.py outputs/cuad_grpo/runs/<run> --spans 3
    python scripts/bench/cuad_answer_choice.py <run> --phase eval_warm --checkpoint checkpoints/distill/final

Prints a table and writes JSON (default ``outputs/bench/cuad_answer_choice.json``).
"""

from __future__ import annotations

import argparse
import copy
import json
from pathlib import Path

import torch
from omegaconf import OmegaConf
from transformers import AutoModelForCausalLM, AutoTokenizer

from agenttune.benchmarks.cuad.dataset import cuad_questions
from agenttune.benchmarks.cuad.teacher import SENTENCE_END, passages
from agenttune.engines.extractive import CLOSE, OPEN, ExtractiveAnswers, collapse, open_answer
from agenttune.engines.templates import encode, render, stop_token_ids
from agenttune.events.io import read_jsonl
from agenttune.events.projections.messages import chat_messages
from agenttune.events.schema import EventKind, EventLog
from agenttune.rewards.answer import exact_match
from agenttune.tracking.run import hardware

REPO_ROOT = Path(__file__).resolve().parents[2]


def continuation_logprobs(model, prefix: list[int], ids: list[int]) -> torch.Tensor:
    """The log-probability of each of ``ids`` after ``prefix``."""
    with torch.no_grad():
        logits = model(torch.tensor([prefix + ids])).logits[0, len(prefix) - 1 : -1]
    return torch.log_softmax(logits.float(), dim=-1)[torch.arange(len(ids)), torch.tensor(ids)]


def shared_prefix_logprobs(model, prefix: list[int], continuations: list[list[int]], batch: int = 16):
    """:func:`continuation_logprobs` of many continuations of one prefix: the prefix runs once and its cache serves
    every continuation (right-padded batches of ``batch``)."""
    with torch.no_grad():
        cache = model(torch.tensor([prefix[:-1]]), use_cache=True).cache
        found = []
        for start in range(0, len(continuations), batch):
            rows = [[prefix[-1], *ids] for ids in continuations[start : start + batch]]
            width = max(map(len, rows))
            ids = torch.zeros(len(rows), width, dtype=torch.long)
            mask = torch.zeros(len(rows), len(prefix) - 1 + width, dtype=torch.long)
            mask[:, : len(prefix) - 1] = 1
            for index, row in enumerate(rows):
                ids[index, : len(row)] = torch.tensor(row)
                mask[index, len(prefix) - 1 : len(prefix) - 1 + len(row)] = 1
            shared = copy.deepcopy(cache)
            shared.batch_repeat_interleave(len(rows))
            positions = torch.arange(len(prefix) - 1, len(prefix) - 1 + width).expand(len(rows), width)
            logits = model(ids, attention_mask=mask, cache=shared, position_ids=positions).logits
            logprobs = torch.log_softmax(logits.float(), dim=-1)
            for index, row in enumerate(rows):
                found.append(logprobs[index, torch.arange(len(row) - 1), torch.tensor(row[1:])])
        return found


def sentence_spans(shown: list[str], most: int) -> list[str]:
    """Every run of 1 to ``most`` consecutive sentences of the passages in ``shown`` (whitespace collapsed, each
    once)."""
    spans = []
    for *_, text in passages(shown):
        sentences = [collapse(s).strip() for s in SENTENCE_END.split(text) if s.strip()]
        for first in range(len(sentences)):
            for last in range(first + 1, min(len(sentences), first + most) + 1):
                spans.append(" ".join(sentences[first:last]))
    return list(dict.fromkeys(spans))


def span_choice(model, tokenizer, prefix: list[int], shown: list[str], most: int, gold: list[str]) -> dict:
    """The sentence spans of ``shown`` ranked by mean log-probability after ``prefix``: how many, the best rank of
    one that is a gold answer (1 is the top; None when none is), and the top span with its exact match."""
    spans = sentence_spans(shown, most)
    logprobs = shared_prefix_logprobs(model, prefix, [encode(tokenizer, span + CLOSE) for span in spans])
    ranked = sorted(range(len(spans)), key=lambda index: -logprobs[index].mean().item())
    gold_ranks = [rank for rank, index in enumerate(ranked, 1) if exact_match(spans[index], gold)]
    top = spans[ranked[0]]
    return {
        "spans": len(spans),
        "gold_rank": min(gold_ranks, default=None),
        "top": top,
        "em": exact_match(top, gold),
    }


def summary(logprobs: torch.Tensor, text: str) -> dict:
    """A continuation's text, tokens and log-probabilities: total, mean, first token, mean after the first."""
    return {
        "text": text,
        "tokens": len(logprobs),
        "sum": round(logprobs.sum().item(), 3),
        "mean": round(logprobs.mean().item(), 3),
        "first": round(logprobs[0].item(), 3),
        "mean_after_first": round(logprobs[1:].mean().item(), 3) if len(logprobs) > 1 else None,
    }


def beam_answer(model, tokenizer, extractive, prefix, source, beams, max_new_tokens, length_penalty) -> str:
    """The answer that beam search finds after ``prefix`` (which ends with ``<answer>``), every step inside the
    answer block constrained to a verbatim span of ``source``; once the block closes, only a stop token."""

    def allowed(_, ids: torch.Tensor) -> list[int]:
        answer = open_answer(OPEN + tokenizer.decode(ids[len(prefix) :], skip_special_tokens=False))
        return extractive.always if answer is None else extractive.allowed(source, answer)

    output = model.generate(
        torch.tensor([prefix]),
        attention_mask=torch.ones(1, len(prefix), dtype=torch.long),
        do_sample=False,
        num_beams=beams,
        length_penalty=length_penalty,
        max_new_tokens=max_new_tokens,
        prefix_allowed_tokens_fn=allowed,
        eos_token_id=extractive.always,
        pad_token_id=extractive.always[0],
    )
    return tokenizer.decode(output[0, len(prefix) :], skip_special_tokens=True).split(CLOSE, 1)[0]


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
        "--tasks", default="", help="only these task ids, comma-separated (default: every episode)"
    )
    parser.add_argument(
        "--beams", type=int, default=0, help="also decode each answer with beam search this wide"
    )
    parser.add_argument(
        "--spans", type=int, default=0, help="also rank every run of 1 to this many sentences shown"
    )
    parser.add_argument("--length-penalty", type=float, default=0.0, help="beam score: sum / length**this")
    parser.add_argument(
        "--out", type=Path, default=REPO_ROOT / "outputs" / "bench" / "cuad_answer_choice.json"
    )
    args = parser.parse_args()

    config = OmegaConf.load(args.run / ".hydra" / "config.yaml")
    bench = config.benchmark
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
    extractive = ExtractiveAnswers(tokenizer, stop_token_ids(tokenizer))

    episodes = []
    for log in read_jsonl(args.run / "eventlogs" / f"{args.phase}.jsonl").logs:
        if args.tasks and log.task_id not in args.tasks.split(","):
            continue
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
        episode = {"task_id": log.task_id, "question": question.question, **scored}
        gold = [question.answer, *question.answer_aliases]
        episode["policy"]["em"] = exact_match(answer, gold)
        if args.beams:
            budget = config.model.max_new_tokens - len(encode(tokenizer, before + OPEN))
            found = beam_answer(
                model,
                tokenizer,
                extractive,
                prefix,
                collapse(prompt),
                args.beams,
                budget,
                args.length_penalty,
            )
            episode["beam"] = {"text": found, "em": exact_match(found, gold)}
        if args.spans:
            episode["spans"] = span_choice(model, tokenizer, prefix, shown, args.spans, gold)
        episodes.append(episode)

    lines = [
        "| question | gold: tokens, sum, first, mean after first | policy's answer: the same | policy's answer: EM, text"
        + (f" | beam of {args.beams}: EM, text |" if args.beams else " |"),
        "| --- | --- | --- | ---" + (" | --- |" if args.beams else " |"),
    ]
    for e in episodes:
        g, p = e["gold"], e["policy"]
        cells = [
            f"{s['tokens']}, {s['sum']:.1f}, {s['first']:.2f}, {s['mean_after_first'] or 0:.2f}"
            for s in (g, p)
        ]
        beam = f" | {e['beam']['em']:.0f}: {e['beam']['text'][:40]!r}" if args.beams else ""
        lines.append(
            f"| {e['question'][:60]} | {cells[0]} | {cells[1]} | {p['em']:.0f}: {p['text'][:40]!r}{beam} |"
        )
    table = "\n".join(lines)
    print(table)
    print(f"{len(episodes)} episodes showed a gold answer whole and answered")
    print(f"exact matches among them: greedy {sum(e['policy']['em'] for e in episodes):.0f}", end="")
    print(f", beam search of {args.beams} {sum(e['beam']['em'] for e in episodes):.0f}" if args.beams else "")
    if args.spans:
        ranks = [e["spans"]["gold_rank"] for e in episodes if e["spans"]["gold_rank"]]
        print(
            f"runs of 1-{args.spans} sentences: a gold answer among them in {len(ranks)} episodes, at ranks {ranks} "
            f"(of {[e['spans']['spans'] for e in episodes if e['spans']['gold_rank']]}); "
            f"the top span an exact match in {sum(e['spans']['em'] for e in episodes):.0f}"
        )
    report = {
        "setup": {
            "run": str(args.run),
            "phase": args.phase,
            "checkpoint": args.checkpoint,
            "beams": args.beams,
            "spans": args.spans,
            "length_penalty": args.length_penalty,
            "hardware": hardware(),
        },
        "episodes": episodes,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report | {"table": table}, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
