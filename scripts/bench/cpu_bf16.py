"""float32 against bfloat16 autocast on the CPU, side by side: a training step, batched generation, and how far
bfloat16 moves the model's scores.

The embedded SmolLM2-135M (float32 weights) on real CUAD text: ``--episodes`` questions, each with 4 passages of its
contract (about 1.1k tokens, as a search episode's prompt after one search), rounds alternating the two sides.

* ``train``: one forward and backward of the causal-LM loss on ``--batch`` rows of ``--length`` tokens (the warm
  start's SFT rows), as ``algorithm.bf16=true`` runs it (``torch.autocast`` on the CPU, float32 weights);
* ``generate``: :class:`~agenttune.engines.transformers_engine.TransformersEngine` on every episode at once,
  ``--max-new-tokens`` greedy tokens, with and without ``compute_dtype="bfloat16"`` (``model.compute_dtype``);
* ``agreement``: per-token logprobs of the same rows under both, their mean and largest absolute difference and
  the share of positions whose greedy token is the same, and how many generated tokens agree before the first
  difference.

    python scripts/bench/cpu_bf16.py                 # writes outputs/bench/cpu_bf16.json
    python scripts/bench/cpu_bf16.py --rounds 1 --episodes 4 --length 512   # a quick look

The speed-up needs bfloat16 in the CPU's vector units (AVX512-BF16 or AMX); the JSON records which the CPU has.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from pathlib import Path
from typing import Any

import torch

from agenttune.benchmarks.cuad.dataset import corpus_for, cuad_questions
from agenttune.config import ModelConfig, repo_root
from agenttune.engines.transformers_engine import TransformersEngine
from agenttune.models import load_model, load_tokenizer

SIDES = {"float32": None, "bfloat16 autocast": "bfloat16"}


def cpu_features() -> dict[str, Any]:
    flags = set()
    name = platform.processor()
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            name = line.split(":", 1)[1].strip()
        if line.startswith("flags"):
            flags = set(line.split(":", 1)[1].split())
    return {
        "cpu": name,
        "threads": torch.get_num_threads(),
        "avx512_bf16": "avx512_bf16" in flags,
        "amx_bf16": "amx_bf16" in flags,
    }


def conversations(count: int) -> list[list[dict[str, str]]]:
    """``count`` CUAD questions, each after 4 passages of its contract."""
    questions = cuad_questions("single_hop", "validation")[:count]
    chunks = corpus_for(questions, max_docs=len(questions))
    by_doc: dict[str, list[str]] = {}
    for chunk in chunks:
        by_doc.setdefault(chunk.doc_id, []).append(chunk.text)
    return [
        [
            {"role": "system", "content": "Answer the question with a quote from the passages."},
            {
                "role": "user",
                "content": "\n\n".join(by_doc[q.doc_ids[0]][:4]) + f"\n\nQuestion: {q.question}",
            },
        ]
        for q in questions
    ]


def autocast(dtype: str | None) -> torch.autocast:
    return torch.autocast("cpu", torch.bfloat16, enabled=dtype is not None)


def train_step(model, rows: torch.Tensor, dtype: str | None) -> float:
    start = time.perf_counter()
    with autocast(dtype):
        loss = model(input_ids=rows, labels=rows).loss
    loss.backward()
    model.zero_grad(set_to_none=True)
    return time.perf_counter() - start


def generation(model, tokenizer, chats, max_new_tokens: int, dtype: str | None) -> tuple[float, list]:
    engine = TransformersEngine(model, tokenizer, max_new_tokens, temperature=0.0, compute_dtype=dtype)
    start = time.perf_counter()
    generations = engine.generate(chats)
    return time.perf_counter() - start, generations


def agreement(model, rows: torch.Tensor) -> dict[str, float]:
    scores = {}
    with torch.no_grad():
        for side, dtype in SIDES.items():
            with autocast(dtype):
                logits = model(input_ids=rows).logits.float()
            scores[side] = torch.log_softmax(logits[:, :-1], -1)
    full, low = scores.values()
    targets = rows[:, 1:, None]
    difference = (full.gather(-1, targets) - low.gather(-1, targets)).abs()
    return {
        "mean_abs_logprob_difference": round(difference.mean().item(), 4),
        "max_abs_logprob_difference": round(difference.max().item(), 4),
        "same_greedy_token": round((full.argmax(-1) == low.argmax(-1)).float().mean().item(), 4),
    }


def agreeing_prefix(a: list[int], b: list[int]) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--episodes", type=int, default=16)
    parser.add_argument("--max-new-tokens", type=int, default=32)
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--length", type=int, default=2048)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--cache-dir", default=Path(repo_root()) / ".cache")
    parser.add_argument("--out", type=Path, default=Path(repo_root()) / "outputs" / "bench" / "cpu_bf16.json")
    args = parser.parse_args()

    cfg = ModelConfig(name="smollm2_135m", path="embedded:smollm2_135m")
    model, tokenizer = load_model(cfg, args.cache_dir), load_tokenizer(cfg, args.cache_dir)
    chats = conversations(args.episodes)
    text = tokenizer.apply_chat_template(chats, tokenize=False)
    ids = tokenizer("".join(text), return_tensors="pt")["input_ids"][0]
    rows = ids[: args.batch * args.length].reshape(args.batch, args.length)

    train: dict[str, list[float]] = {side: [] for side in SIDES}
    generate: dict[str, list[float]] = {side: [] for side in SIDES}
    outputs: dict[str, list] = {}
    train_step(model, rows, None)  # warm-up: first-call allocations
    for round_number in range(args.rounds):
        for side, dtype in SIDES.items():
            train[side].append(train_step(model, rows, dtype))
            seconds, outputs[side] = generation(model, tokenizer, chats, args.max_new_tokens, dtype)
            generate[side].append(seconds)
            print(
                f"round {round_number + 1} {side}: train {train[side][-1]:.2f} s, generate {seconds:.2f} s",
                flush=True,
            )
    model.eval()
    prompt_tokens = sum(len(g.prompt_ids) for g in outputs["float32"])
    result = {
        **cpu_features(),
        "torch": torch.__version__,
        "episodes": args.episodes,
        "prompt_tokens": prompt_tokens,
        "max_new_tokens": args.max_new_tokens,
        "train_rows": [args.batch, args.length],
        "rounds": args.rounds,
        "train_step_s": {side: round(statistics.median(v), 2) for side, v in train.items()},
        "generate_s": {side: round(statistics.median(v), 2) for side, v in generate.items()},
        "agreement": agreement(model, rows[:1, :512])
        | {
            "generated_tokens_before_first_difference": statistics.mean(
                agreeing_prefix(a.completion_ids, b.completion_ids)
                for a, b in zip(outputs["float32"], outputs["bfloat16 autocast"], strict=True)
            )
        },
    }
    full, low = SIDES
    result["speedup"] = {
        "train": round(result["train_step_s"][full] / result["train_step_s"][low], 2),
        "generate": round(result["generate_s"][full] / result["generate_s"][low], 2),
    }
    print(f"\n{result['cpu']}, {result['threads']} threads, avx512_bf16={result['avx512_bf16']}")
    print(f"{'':22}{'float32':>10}{'bf16':>10}{'speed-up':>10}")
    for part, key in (("train step (s)", "train_step_s"), ("generate (s)", "generate_s")):
        values = result[key]
        print(f"{part:22}{values[full]:>10}{values[low]:>10}{values[full] / values[low]:>9.2f}x")
    print("agreement:", result["agreement"])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
