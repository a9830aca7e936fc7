"""How a distilled student scores the first token of each turn of its own SFT rows, against the rest of the row:
python scripts/sft_turn_choice.py RUN [--checkpoint final] [--limit N] [--out FILE]

A ``pipeline=distill`` run keeps the teacher's episodes in ``eventlogs/teacher_kept.jsonl``. Each is projected into
the weighted SFT row the run trained on (``algorithm.segment_weights``, cut at ``algorithm.max_length``) and scored
by ``checkpoints/<checkpoint>``. A turn's first token is the one that decides between a tool call and a text reply;
it is 1 of many weighted tokens, so a low training loss can hide a student that never makes the choice. Prints,
over the rows: their tokens, their tool calls, the mean log-probability of every weighted token, and for the first
token of tool-call turns and of text turns its mean log-probability and the share where it is the student's argmax.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

import torch
from omegaconf import OmegaConf
from transformers import AutoModelForCausalLM, AutoTokenizer

from agenttune.events.io import load_jsonl
from agenttune.events.projections.sft import assistant_turn_starts, sft_row
from agenttune.events.schema import EventKind

TURN_KINDS = {EventKind.TOOL_CALL: "tool_call", EventKind.TEXT: "text"}


def turn_choice(run: Path, checkpoint: str, limit: int | None) -> dict[str, float]:
    cfg = OmegaConf.load(run / ".hydra" / "config.yaml")
    path = run / "checkpoints" / checkpoint
    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32).eval()
    logs = load_jsonl(run / "eventlogs" / "teacher_kept.jsonl")[:limit]
    if not logs:
        raise SystemExit(f"error: {run}/eventlogs/teacher_kept.jsonl holds no episode (is it a distill run?)")
    max_length = int(cfg.algorithm.max_length)
    weighted_counts, weighted_logprobs, turn_logprobs, turn_hits = (
        [],
        [],
        {k: [] for k in TURN_KINDS.values()},
        {k: [] for k in TURN_KINDS.values()},
    )
    for log in logs:
        row = sft_row(log, tokenizer, dict(cfg.algorithm.segment_weights))
        ids, weights = row["input_ids"][:max_length], row["weights"][:max_length]
        with torch.no_grad():
            logprobs = model(torch.tensor([ids])).logits[0].log_softmax(-1)  # position t predicts token t + 1
        weighted = [t for t in range(1, len(ids)) if weights[t] > 0]
        weighted_counts.append(len(weighted))
        weighted_logprobs += [float(logprobs[t - 1, ids[t]]) for t in weighted]
        for start, event_kind in assistant_turn_starts(log):
            kind = TURN_KINDS.get(event_kind)
            if kind and 0 < start < len(ids) and weights[start] > 0:
                turn_logprobs[kind].append(float(logprobs[start - 1, ids[start]]))
                turn_hits[kind].append(float(int(logprobs[start - 1].argmax()) == ids[start]))
    lengths = [len(log.token_ids) for log in logs]
    result = {
        "rows": len(logs),
        "tokens/min": min(lengths),
        "tokens/median": statistics.median(lengths),
        "tokens/max": max(lengths),
        "weighted_tokens/min": min(weighted_counts),
        "weighted_tokens/median": statistics.median(weighted_counts),
        "weighted_tokens/max": max(weighted_counts),
        "tool_calls": sum(event.payload.kind == EventKind.TOOL_CALL for log in logs for event in log.events),
        "rows_without_tool_call": sum(
            not any(event.payload.kind == EventKind.TOOL_CALL for event in log.events) for log in logs
        ),
        "weighted_token/mean_logprob": statistics.fmean(weighted_logprobs),
    }
    for kind in TURN_KINDS.values():
        if turn_logprobs[kind]:
            result[f"turn_start/{kind}/n"] = len(turn_logprobs[kind])
            result[f"turn_start/{kind}/mean_logprob"] = statistics.fmean(turn_logprobs[kind])
            result[f"turn_start/{kind}/argmax_share"] = statistics.fmean(turn_hits[kind])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("run", type=Path, help="a pipeline=distill run folder")
    parser.add_argument("--checkpoint", default="final", help="the folder under checkpoints/ (default final)")
    parser.add_argument("--limit", type=int, help="score the first N rows only")
    parser.add_argument("--out", type=Path, help="also write the numbers as JSON")
    args = parser.parse_args()
    result = turn_choice(args.run, args.checkpoint, args.limit)
    for key, value in result.items():
        print(f"{key:40s} {value:.3f}" if isinstance(value, float) else f"{key:40s} {value}")
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
