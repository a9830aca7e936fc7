"""The self-evolution method's DPO step, two ways side by side: TRL's forward (each pair as two full rows, chosen
and rejected) against agenttune's (each pair one row, its prompt encoded once: ``algorithm.share_prompt``,
:mod:`agenttune.training.shared_prompt_dpo`).

Pairs are shaped as the method's divergence-point pairs on tau2 airline: a prompt of ``--prompt-tokens`` (the domain
policy, tool schemas and the episode up to the divergence turn; ~7.4k tokens there) and two one-turn completions
(``--chosen-tokens``, ``--rejected-tokens``; a turn is at most 128 tokens). Token ids are random: the step's cost
depends on the lengths, not on the text. Both sides run on one trainer built as ``+experiment=tau2_toolgraph_dpo``
builds it: the embedded SmolLM2-135M with LoRA r16 on every projection (the reference is the model with its adapters
off), float32, ``--pairs`` pairs a micro-batch (the method's ``per_device_batch_size: 2``), and TRL's default
activation checkpointing (every layer's forward runs again in the backward).

A step is the loss (the policy's forward, the reference's forward) and its backward; the optimizer update, the same
on both sides, is left out. The adapters start at small random values (LoRA's own start is the reference, where
every loss is log 2), so the loss check compares real losses. Each side runs one short untimed step first, then
the sides alternate within each of ``--rounds`` rounds; the table gives the median. The check column is the
largest difference of a step's loss from TRL's.

    python scripts/bench/dpo_step.py                              # writes outputs/bench/dpo_step.json
    python scripts/bench/dpo_step.py --prompt-tokens 1000 --rounds 1   # a quick look
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import torch
from datasets import Dataset
from trl import DPOTrainer
from trl.trainer.dpo_trainer import DataCollatorForPreference

from agenttune.config import LoraConfig, ModelConfig, repo_root
from agenttune.models import load_model, load_tokenizer
from agenttune.training import TrainingData, build_trainer
from agenttune.training.dpo import DPOAlgorithmConfig
from agenttune.training.shared_prompt_dpo import SharedPromptDPOTrainer

SIDES = {"TRL: two full rows a pair": DPOTrainer, "agenttune: the prompt once a pair": SharedPromptDPOTrainer}


def random_pairs(vocab: int, count: int, prompt: int, chosen: int, rejected: int, seed: int) -> list[dict]:
    generator = torch.Generator().manual_seed(seed)

    def ids(length: int) -> list[int]:
        return torch.randint(3, vocab, (length,), generator=generator).tolist()

    return [
        {"prompt_ids": ids(prompt), "chosen_ids": ids(chosen), "rejected_ids": ids(rejected)}
        for _ in range(count)
    ]


def step(trainer, trainer_class, batch) -> tuple[float, float]:
    """The loss and backward of one batch with ``trainer_class``'s forward; (seconds, loss)."""
    start = time.perf_counter()
    loss = trainer_class._compute_loss(trainer, trainer.model, batch, return_outputs=False)
    loss.backward()
    trainer.model.zero_grad(set_to_none=True)
    return time.perf_counter() - start, loss.item()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--prompt-tokens", type=int, default=7400)
    parser.add_argument("--chosen-tokens", type=int, default=60)
    parser.add_argument("--rejected-tokens", type=int, default=90)
    parser.add_argument("--pairs", type=int, default=2, help="pairs a micro-batch")
    parser.add_argument("--batches", type=int, default=1, help="micro-batches a side a round")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--cache-dir", default=Path(repo_root()) / ".cache")
    parser.add_argument("--out", type=Path, default=Path(repo_root()) / "outputs" / "bench" / "dpo_step.json")
    args = parser.parse_args()

    model_config = ModelConfig(
        name="smollm2_135m", path="embedded:smollm2_135m", lora=LoraConfig(enabled=True)
    )
    tokenizer = load_tokenizer(model_config, args.cache_dir)
    model = load_model(model_config, args.cache_dir)
    algorithm = DPOAlgorithmConfig(name="dpo", beta=0.2, max_length=8192, per_device_batch_size=args.pairs)
    unused = Dataset.from_dict({"prompt": ["hi"], "chosen": [" a"], "rejected": [" b"]})
    trainer = build_trainer(algorithm, model, tokenizer, TrainingData(preferences=unused), tempfile.mkdtemp())
    if trainer.args.activation_checkpointing:  # what Trainer.train does first
        trainer.model.activation_checkpointing_enable(
            activation_checkpointing_kwargs=trainer.args.activation_checkpointing_kwargs or None
        )
    # adapters away from zero, so the policy differs from its reference as after a few steps
    with torch.no_grad():
        generator = torch.Generator().manual_seed(0)
        for name, parameter in trainer.model.named_parameters():
            if "lora_B" in name:
                parameter.copy_(0.01 * torch.randn(parameter.shape, generator=generator))
    trainer.model.train()
    collate = DataCollatorForPreference(pad_token_id=tokenizer.pad_token_id)
    lengths = (args.prompt_tokens, args.chosen_tokens, args.rejected_tokens)
    batches = [
        collate(random_pairs(model.config.vocab_size, args.pairs, *lengths, seed=index))
        for index in range(args.batches)
    ]

    warm_up = collate(random_pairs(model.config.vocab_size, args.pairs, 32, 8, 8, seed=args.batches))
    for trainer_class in SIDES.values():  # first calls set up kernels and caches: not timed
        step(trainer, trainer_class, warm_up)
    times: dict[str, list[float]] = {side: [] for side in SIDES}
    losses: dict[str, list[float]] = {side: [] for side in SIDES}
    for round_index in range(args.rounds):
        for side, trainer_class in SIDES.items():
            for batch in batches:
                seconds, loss = step(trainer, trainer_class, batch)
                times[side].append(seconds)
                if round_index == 0:
                    losses[side].append(loss)
            print(
                f"round {round_index + 1} {side}: {statistics.median(times[side]):.1f} s a step", flush=True
            )

    base = statistics.median(times[next(iter(SIDES))])
    trl_losses = losses[next(iter(SIDES))]
    result = {
        "model": "SmolLM2-135M (embedded), LoRA r16, float32, activation checkpointing",
        "threads": torch.get_num_threads(),
        "pair_tokens": {
            "prompt": args.prompt_tokens,
            "chosen": args.chosen_tokens,
            "rejected": args.rejected_tokens,
        },
        "pairs_a_step": args.pairs,
        "steps_a_side": args.batches * args.rounds,
        "sides": {
            side: {
                "median_step_s": round(statistics.median(times[side]), 2),
                "speedup": round(base / statistics.median(times[side]), 2),
                "max_loss_difference": round(
                    max(abs(a - b) for a, b in zip(losses[side], trl_losses, strict=True)), 6
                ),
            }
            for side in SIDES
        },
    }
    print(f"\npairs of {lengths} tokens (prompt, chosen, rejected), {args.pairs} a step")
    print(f"{'side':36} {'step s':>8} {'speed-up':>9} {'loss diff':>10}")
    for side, row in result["sides"].items():
        print(
            f"{side:36} {row['median_step_s']:8.1f} {row['speedup']:8.2f}x {row['max_loss_difference']:10.6f}"
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
