"""The warm start's SFT step on real agent trajectories, five ways side by side: rows padded into a batch of 2 or
fed one at a time with 2 accumulated, logits over every position or only where a weighted token is predicted, and
activation checkpointing on or off.

Rows are a scripted teacher's CUAD search trajectories (``--logs``: an EventLog file; by default the
``teacher_kept.jsonl`` of the newest ``cuad_grpo`` run), projected to weighted SFT rows exactly as the warm start
projects them (tool results weight 0, tool calls 2, the answer 1) and cut to ``--max-length``. Every side runs the
same ``--pairs`` pairs of consecutive rows, each pair one optimizer step's worth, under bf16 autocast as the main job
trains (``algorithm.bf16=true``), with the project's collator and loss (:mod:`agenttune.training.weighted_sft`).
A step is the forward and backward of its two rows; the optimizer update, the same on every side, is left out.

* ``batch 2``: both rows padded to the longer, with an attention mask (``per_device_batch_size: 2``);
* ``batch 1 x 2``: one row at a time, gradients accumulated (``per_device_batch_size: 1``,
  ``gradient_accumulation_steps: 2``): no padding, and no mask, so attention takes its causal fast path;
* ``full logits``: the LM head on every position (``seq x vocab`` logits);
* ``weighted logits``: the LM head only where a row predicts a weighted token (``logits_to_keep``), as
  :class:`~agenttune.training.weighted_sft.WeightedSFTTrainer` does;
* ``checkpointing``: activation checkpointing, TRL's default (``activation_checkpointing``): every layer's forward
  runs again in the backward. The first side is what the main job's warm start ran before: batch 2, full logits,
  checkpointing on.

Sides alternate within each round; the table gives the median step time. The check column is the largest
difference of a step's loss from the full-logits side with the same batching: keeping fewer logits must not change
the loss (the two batchings differ by design: a batch of 2 averages over both rows' weighted tokens, accumulation
averages the two rows' means, as the Trainer does).

    python scripts/bench/sft_step.py                      # writes outputs/bench/sft_step.json
    python scripts/bench/sft_step.py --pairs 2 --rounds 1 # a quick look
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import torch

from agenttune.config import ModelConfig, repo_root
from agenttune.events import read_jsonl
from agenttune.models import load_model, load_tokenizer
from agenttune.training.sft import SFTAlgorithmConfig
from agenttune.training.weighted_sft import (
    WeightedCollator,
    as_weighted_rows,
    predicting_positions,
    weighted_token_loss,
)

SIDES = {  # side: (rows a micro-batch, weighted logits only, activation checkpointing)
    "batch 2, full logits, checkpointing": (2, False, True),
    "batch 2, full logits": (2, False, False),
    "batch 2, weighted logits": (2, True, False),
    "batch 1 x 2, full logits": (1, False, False),
    "batch 1 x 2, weighted logits": (1, True, False),
}


def newest_teacher_log() -> Path:
    found = sorted(Path(repo_root(), "outputs", "cuad_grpo", "runs").glob("*/eventlogs/teacher_kept.jsonl"))
    if not found:
        raise SystemExit(
            "no teacher trajectories: run `make train` first, or pass --logs <an EventLog file of search episodes>"
        )
    return found[-1]


def step(model, collate, pair, micro_batch: int, weighted_logits: bool) -> tuple[float, float]:
    """Forward and backward of one pair of rows; (seconds, the pair's loss as the trainer reports it)."""
    start = time.perf_counter()
    losses = []
    for first in range(0, len(pair), micro_batch):
        batch = collate(pair[first : first + micro_batch])
        positions = predicting_positions(batch["weights"]) if weighted_logits else None
        with torch.autocast("cpu", torch.bfloat16):
            logits = model(
                input_ids=batch["input_ids"],
                attention_mask=batch["attention_mask"],
                use_cache=False,
                logits_to_keep=0 if positions is None else positions,
            ).logits
        loss = weighted_token_loss(logits.float(), batch["input_ids"], batch["weights"], positions)
        (loss / (len(pair) // micro_batch)).backward()
        losses.append(loss.item())
    model.zero_grad(set_to_none=True)
    return time.perf_counter() - start, statistics.mean(losses)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--logs", type=Path, default=None)
    parser.add_argument("--pairs", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--max-length", type=int, default=3072)
    parser.add_argument("--cache-dir", default=Path(repo_root()) / ".cache")
    parser.add_argument("--out", type=Path, default=Path(repo_root()) / "outputs" / "bench" / "sft_step.json")
    args = parser.parse_args()

    logs_path = args.logs or newest_teacher_log()
    model_config = ModelConfig(name="smollm2_135m", path="embedded:smollm2_135m")
    tokenizer = load_tokenizer(model_config, args.cache_dir)
    model = load_model(model_config, args.cache_dir)
    model.train()
    weights = SFTAlgorithmConfig().segment_weights
    rows = as_weighted_rows(read_jsonl(logs_path).logs, tokenizer, weights, args.max_length).to_list()
    if len(rows) < 2 * args.pairs:
        raise SystemExit(f"{logs_path} gives {len(rows)} rows; --pairs {args.pairs} needs {2 * args.pairs}")
    pairs = [rows[2 * i : 2 * i + 2] for i in range(args.pairs)]
    collate = WeightedCollator(tokenizer.pad_token_id)

    times: dict[str, list[float]] = {side: [] for side in SIDES}
    losses: dict[str, list[float]] = {side: [] for side in SIDES}
    for round_index in range(args.rounds):
        for side, (micro_batch, weighted_logits, checkpointing) in SIDES.items():
            if checkpointing:
                model.activation_checkpointing_enable()
            else:
                model.activation_checkpointing_disable()
            for pair in pairs:
                seconds, loss = step(model, collate, pair, micro_batch, weighted_logits)
                times[side].append(seconds)
                if round_index == 0:
                    losses[side].append(loss)
            print(
                f"round {round_index + 1} {side}: {statistics.median(times[side]):.2f} s a step", flush=True
            )

    base = statistics.median(times[next(iter(SIDES))])
    full_logits = {  # each batching's reference side for the loss check
        batch: side
        for side, (batch, weighted, checkpointing) in SIDES.items()
        if not (weighted or checkpointing)
    }
    result = {
        "logs": str(logs_path),
        "pairs": args.pairs,
        "rounds": args.rounds,
        "threads": torch.get_num_threads(),
        "row_tokens": [len(row["input_ids"]) for pair in pairs for row in pair],
        "weighted_tokens": [sum(w > 0 for w in row["weights"][1:]) for pair in pairs for row in pair],
        "sides": {
            side: {
                "median_step_s": round(statistics.median(times[side]), 2),
                "speedup": round(base / statistics.median(times[side]), 2),
                "max_loss_difference": round(
                    max(
                        abs(a - b)
                        for a, b in zip(losses[side], losses[full_logits[micro_batch]], strict=True)
                    ),
                    5,
                ),
            }
            for side, (micro_batch, _, _) in SIDES.items()
        },
    }
    print(f"\n{len(rows)} rows from {logs_path}; steps of 2 rows, {args.pairs} pairs x {args.rounds} rounds")
    print(f"{'side':38} {'step s':>8} {'speed-up':>9} {'loss diff':>10}")
    for side, row in result["sides"].items():
        print(
            f"{side:38} {row['median_step_s']:8.2f} {row['speedup']:8.2f}x {row['max_loss_difference']:10.5f}"
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
