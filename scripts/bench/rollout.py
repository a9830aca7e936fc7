"""Benchmarks of the agent runtime, one part at a time (``--part``), results merged into one JSON file.

Part ``rollout``: multi-turn rollouts with the batched transformers engine (all live episodes in one
engine call per turn) against the same loop run one episode at a time. Same model, same tasks (the toy
calculator harness in chat mode, so every episode runs ``--turns`` turns), greedy decoding, fixed
``--max-new-tokens``, full-tier token tracking on in both. Reports generated tokens/s and episodes/s, and
the cost of one decode step at batch 1, 4 and 8 (the model's forward on one new token per row with a
key/value cache of ``--context`` tokens): batching pays off as far as a batch-8 step costs less than 8
batch-1 steps. The engine re-renders each turn's prompt in both loops (no cache is kept across calls); the
batched loop prefills the prompts' shared prefix once per turn.

    python scripts/bench/rollout.py --part rollout            # embedded SmolLM2-135M (converted once)
    python scripts/bench/rollout.py --part rollout --tiny     # tiny random model, a smoke run

Writes ``outputs/bench/rollout.json`` (``--out``), one key per part.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from agenttune.agents import ReAct, run_episodes
from agenttune.agents.toy import CalculatorHarness, tasks
from agenttune.config import ModelConfig, repo_root
from agenttune.engines.transformers_engine import TransformersEngine
from agenttune.events.schema import EventLog
from agenttune.models import load_model, load_tokenizer


def model_config(tiny: bool) -> ModelConfig:
    if tiny:
        return ModelConfig(name="tiny_random", path="tiny_random")
    return ModelConfig(name="smollm2_135m", path="embedded:smollm2_135m")


def generated_tokens(logs: list[EventLog]) -> int:
    """Tokens the policy sampled: the spans that carry logprobs."""
    return sum(len(e.logprobs) for log in logs for e in log.events if e.logprobs is not None)


def timed_rollouts(engine: TransformersEngine, n: int, turns: int, batched: bool) -> dict[str, float]:
    strategy = ReAct(max_turns=turns)
    start, cpu_start = time.perf_counter(), time.process_time()
    if batched:
        logs = run_episodes(engine, lambda: CalculatorHarness(chat=True), strategy, tasks(n))
    else:
        logs = [
            log
            for task in tasks(n)
            for log in run_episodes(engine, [CalculatorHarness(chat=True)], strategy, [task])
        ]
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
    tokens = generated_tokens(logs)
    assert all(log.tier == "full" for log in logs)
    return {
        "seconds": round(seconds, 3),
        "cpu_seconds": round(cpu_seconds, 3),
        "episodes": n,
        "generated_tokens": tokens,
        "tokens_per_s": round(tokens / seconds, 2),
        "episodes_per_s": round(n / seconds, 4),
    }


def decode_step_ms(engine: TransformersEngine, batch: int, context: int, repeat: int = 8) -> float:
    """Median milliseconds of one of the engine's decode steps for ``batch`` rows after ``context`` tokens."""
    prompt = torch.randint(100, 1000, (context,)).tolist()
    tokens = torch.full((batch,), prompt[-1], device=engine.model.device)
    times = []
    engine.model.eval()
    with torch.no_grad():
        rows, _ = engine._prefill([prompt] * batch)
        for _ in range(repeat):
            start = time.perf_counter()
            engine._step(rows, tokens)
            times.append(time.perf_counter() - start)
    return round(1000 * sorted(times)[len(times) // 2], 1)


def bench_rollout(args: argparse.Namespace) -> dict[str, Any]:
    cfg = model_config(args.tiny)
    tokenizer = load_tokenizer(cfg, args.cache_dir)
    model = load_model(cfg, args.cache_dir)
    engine = TransformersEngine(model, tokenizer, max_new_tokens=args.max_new_tokens, temperature=0.0)
    timed_rollouts(engine, 2, 1, batched=True)  # warm-up
    sequential = timed_rollouts(engine, args.episodes, args.turns, batched=False)
    print(f"sequential: {sequential}", flush=True)
    batched = timed_rollouts(engine, args.episodes, args.turns, batched=True)
    print(f"batched: {batched}", flush=True)
    step_ms = {str(b): decode_step_ms(engine, b, args.context) for b in (1, 4, 8)}
    return {
        "model": cfg.name,
        "episodes": args.episodes,
        "turns": args.turns,
        "max_new_tokens": args.max_new_tokens,
        "torch_threads": torch.get_num_threads(),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "sequential": sequential,
        "batched": batched,
        "speedup_tokens_per_s": round(batched["tokens_per_s"] / sequential["tokens_per_s"], 2),
        "speedup_episodes_per_s": round(batched["episodes_per_s"] / sequential["episodes_per_s"], 2),
        "cpu_time_ratio": round(sequential["cpu_seconds"] / batched["cpu_seconds"], 2),
        "decode_step_ms": step_ms,
        "decode_context": args.context,
    }


def print_rollout(result: dict[str, Any]) -> None:
    print(
        f"\nrollouts: {result['model']}, {result['episodes']} episodes x {result['turns']} turns, greedy, "
        f"{result['max_new_tokens']} new tokens a turn, {result['torch_threads']} threads"
    )
    print(f"{'loop':<12}{'seconds':>10}{'cpu s':>10}{'gen tokens':>12}{'tokens/s':>10}{'episodes/s':>12}")
    for name in ("sequential", "batched"):
        row = result[name]
        print(
            f"{name:<12}{row['seconds']:>10.2f}{row['cpu_seconds']:>10.2f}{row['generated_tokens']:>12}"
            f"{row['tokens_per_s']:>10.1f}{row['episodes_per_s']:>12.3f}"
        )
    print(
        f"speedup: {result['speedup_tokens_per_s']}x tokens/s, {result['speedup_episodes_per_s']}x episodes/s "
        f"(CPU time {result['cpu_time_ratio']}x less; load average {result['load_average_1m']})"
    )
    steps = result["decode_step_ms"]
    print(
        f"one decode step after {result['decode_context']} tokens: "
        + ", ".join(f"batch {b} {ms} ms" for b, ms in steps.items())
        + f" (batch 8 = {steps['8'] / steps['1']:.2f}x batch 1)"
    )


# Each part: (run, print). GRPO step time against bare TRL is scripts/bench/grpo_step.py.
PARTS: dict[str, tuple[Callable[[argparse.Namespace], dict[str, Any]], Callable[[dict[str, Any]], None]]] = {
    "rollout": (bench_rollout, print_rollout),
}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--part", choices=sorted(PARTS), default="rollout")
    parser.add_argument("--tiny", action="store_true", help="tiny random model instead of SmolLM2-135M")
    parser.add_argument("--episodes", type=int, default=8)
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--max-new-tokens", type=int, default=32)
    parser.add_argument("--context", type=int, default=220, help="cached tokens in the decode-step timing")
    parser.add_argument(
        "--cache-dir", default=os.environ.get("AGENTTUNE_CACHE_DIR", Path(repo_root()) / ".cache")
    )
    parser.add_argument("--out", default=Path(repo_root()) / "outputs" / "bench" / "rollout.json")
    args = parser.parse_args()
    run, show = PARTS[args.part]
    result = run(args)
    show(result)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    merged = json.loads(out.read_text()) if out.exists() else {}
    merged[args.part] = result
    out.write_text(json.dumps(merged, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
