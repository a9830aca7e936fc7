"""Benchmarks of the agent runtime, one part at a time (``--part``), results merged into one JSON file.

Part ``rollout``: multi-turn rollouts of the batched transformers engine against the same engine run one
episode at a time. Same model, same tasks (the toy calculator harness in chat mode, so every episode runs
``--turns`` turns), fixed ``--max-new-tokens``, full-tier token tracking on. Three loops:

* ``sequential``: one episode after another (each keeps its key/value cache across its turns);
* ``turn by turn``: all episodes batched, one engine call per turn (the base ``Engine.serve``), so each
  turn lasts as long as its longest row;
* ``continuous``: all episodes in the engine's own ``serve``: a row that ends its turn is fed the next one at
  once while the others decode.

Reports generated tokens/s and episodes/s, and the cost of one decode step at batch 1, 4 and 8 (the model's
forward on one new token per row after ``--context`` cached tokens): batching pays off as far as a batch-8
step costs less than 8 batch-1 steps. Greedy by default (the loops then generate the same tokens);
``--temperature`` samples, as RL rollouts do, and the loops then generate different tokens.

    python scripts/bench/rollout.py --part rollout                   # embedded SmolLM2-135M (converted once)
    python scripts/bench/rollout.py --part rollout --temperature 1   # sampled turns of varying length
    python scripts/bench/rollout.py --part rollout --tiny            # tiny random model, a smoke run

Part ``cache``: one decode step of ``--episodes`` rows after a ``--context``-token prompt, with the engine's cache
layers (``SlotLayer``: each token written in place into a buffer with spare slots) against transformers'
``DynamicLayer.update`` (``torch.cat`` of the whole layer on every token), alternating ``--rounds``.

    python scripts/bench/rollout.py --part cache --episodes 32 --context 1400 --max-new-tokens 48

Part ``memory``: the peak resident memory of one ``serve`` call of ``--episodes`` one-turn requests with
``--context``-token prompts, decoded all at once (``model.max_concurrent`` unset) and at most ``--max-concurrent`` at
a time, each side in a fresh process (``ru_maxrss``), with the wall time of each. The key/value cache holds rows x
the widest row's slots, so the bound caps it; the price is fewer rows a decode step.

    python scripts/bench/rollout.py --part memory --episodes 32 --context 1000 --max-concurrent 8 --max-new-tokens 16

Part ``invariance``: whether a greedy decode depends on the rows decoded beside it. ``--episodes`` one-turn requests
with prompts of ``--context``/2 to ``--context`` tokens, decoded one at a time, at most ``--max-concurrent`` at a
time and all at once, in float32 and under bfloat16 autocast (``model.compute_dtype``); counts the completions that
differ from the one-at-a-time decode of the same precision, and the first token at which they do.

    python scripts/bench/rollout.py --part invariance --episodes 16 --context 400 --max-new-tokens 48 --max-concurrent 4

Writes ``outputs/bench/rollout.json`` (``--out``), one key per part (``rollout_temperature_<T>`` when sampling).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import resource
import statistics
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any
from unittest import mock

import torch
from transformers.cache_utils import DynamicLayer

from agenttune.agents import ReAct, run_episodes
from agenttune.agents.toy import CalculatorHarness, tasks
from agenttune.config import ModelConfig, repo_root
from agenttune.engines.base import Engine, Request
from agenttune.engines.transformers_engine import SlotLayer, TransformersEngine
from agenttune.events.schema import EventLog
from agenttune.models import load_model, load_tokenizer


def model_config(tiny: bool) -> ModelConfig:
    if tiny:
        return ModelConfig(name="tiny_random", path="tiny_random")
    return ModelConfig(name="smollm2_135m", path="embedded:smollm2_135m")


def generated_tokens(log: EventLog) -> int:
    """Tokens the policy sampled in one episode: the spans that carry logprobs."""
    return sum(len(e.logprobs) for e in log.events if e.logprobs is not None)


class TurnByTurnEngine(TransformersEngine):
    """The transformers engine without continuous batching: one batched ``generate`` call per turn."""

    serve = Engine.serve


def timed_rollouts(
    engine: TransformersEngine, n: int, turns: int, loop: str, seed: int = 0
) -> dict[str, float]:
    strategy = ReAct(max_turns=turns)
    torch.manual_seed(seed)
    start, cpu_start = time.perf_counter(), time.process_time()
    if loop != "sequential":
        logs = run_episodes(engine, lambda: CalculatorHarness(chat=True), strategy, tasks(n))
    else:
        logs = [
            log
            for task in tasks(n)
            for log in run_episodes(engine, [CalculatorHarness(chat=True)], strategy, [task])
        ]
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
    per_episode = [generated_tokens(log) for log in logs]
    tokens = sum(per_episode)
    assert all(log.tier == "full" for log in logs)
    return {
        "seconds": round(seconds, 3),
        "cpu_seconds": round(cpu_seconds, 3),
        "episodes": n,
        "generated_tokens": tokens,
        # a batched loop takes at least this many decode steps: the longest episode's tokens, one after another
        "longest_episode_tokens": max(per_episode),
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
    settings = {"max_new_tokens": args.max_new_tokens, "temperature": args.temperature}
    engines = {
        "sequential": TransformersEngine(model, tokenizer, **settings),
        "turn by turn": TurnByTurnEngine(model, tokenizer, **settings),
        "continuous": TransformersEngine(model, tokenizer, **settings),
    }
    timed_rollouts(engines["continuous"], 2, 1, "continuous")  # warm-up
    loops = {}
    for loop, engine in engines.items():
        loops[loop] = timed_rollouts(engine, args.episodes, args.turns, loop)
        print(f"{loop}: {loops[loop]}", flush=True)
    sequential = loops["sequential"]
    speedups = {
        loop: {
            "tokens_per_s": round(row["tokens_per_s"] / sequential["tokens_per_s"], 2),
            "episodes_per_s": round(row["episodes_per_s"] / sequential["episodes_per_s"], 2),
        }
        for loop, row in loops.items()
        if loop != "sequential"
    }
    step_ms = {str(b): decode_step_ms(engines["continuous"], b, args.context) for b in (1, 4, 8)}
    return {
        "model": cfg.name,
        "episodes": args.episodes,
        "turns": args.turns,
        "max_new_tokens": args.max_new_tokens,
        "temperature": args.temperature,
        "torch_threads": torch.get_num_threads(),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "loops": loops,
        "speedup_over_sequential": speedups,
        "decode_step_ms": step_ms,
        "decode_context": args.context,
    }


def print_rollout(result: dict[str, Any]) -> None:
    sampling = f"temperature {result['temperature']}" if result["temperature"] > 0 else "greedy"
    print(
        f"\nrollouts: {result['model']}, {result['episodes']} episodes x {result['turns']} turns, {sampling}, "
        f"{result['max_new_tokens']} new tokens a turn, {result['torch_threads']} threads, "
        f"load average {result['load_average_1m']}"
    )
    print(
        f"{'loop':<14}{'seconds':>10}{'cpu s':>10}{'gen tokens':>12}{'longest ep':>12}{'tokens/s':>10}"
        f"{'episodes/s':>12}{'x tokens/s':>12}{'x episodes/s':>14}"
    )
    for name, row in result["loops"].items():
        speedup = result["speedup_over_sequential"].get(name, {"tokens_per_s": 1.0, "episodes_per_s": 1.0})
        print(
            f"{name:<14}{row['seconds']:>10.2f}{row['cpu_seconds']:>10.2f}{row['generated_tokens']:>12}"
            f"{row['longest_episode_tokens']:>12}{row['tokens_per_s']:>10.1f}{row['episodes_per_s']:>12.3f}"
            f"{speedup['tokens_per_s']:>12.2f}{speedup['episodes_per_s']:>14.2f}"
        )
    steps = result["decode_step_ms"]
    print(
        f"one decode step after {result['decode_context']} tokens: "
        + ", ".join(f"batch {b} {ms} ms" for b, ms in steps.items())
        + f" (batch 8 = {steps['8'] / steps['1']:.2f}x batch 1)"
    )


def bench_cache(args: argparse.Namespace) -> dict[str, Any]:
    """Decode steps of ``--episodes`` rows after a ``--context``-token prompt: the engine's cache layers
    (``SlotLayer``, tokens written in place) against transformers' ``DynamicLayer.update`` (``torch.cat`` of the
    whole layer per token), alternating rounds; median milliseconds a step over ``--max-new-tokens`` steps."""
    cfg = model_config(args.tiny)
    engine = TransformersEngine(load_model(cfg, args.cache_dir), load_tokenizer(cfg, args.cache_dir))
    prompt = torch.randint(100, 1000, (args.context,), generator=torch.Generator().manual_seed(0)).tolist()
    sides = {"slots": SlotLayer.update, "concatenation": DynamicLayer.update}
    times: dict[str, list[float]] = {side: [] for side in sides}
    engine.model.eval()
    for _ in range(args.rounds):
        for side, update in sides.items():
            with torch.no_grad(), mock.patch.object(SlotLayer, "update", update):
                batch, _ = engine._prefill([prompt] * args.episodes)  # one shared prefix: a cheap prefill
                tokens = torch.full((args.episodes,), prompt[-1], device=engine.model.device)
                for _ in range(args.max_new_tokens):
                    start = time.perf_counter()
                    engine._step(batch, tokens)
                    times[side].append(time.perf_counter() - start)
    medians = {side: round(1000 * statistics.median(values), 1) for side, values in times.items()}
    return {
        "model": cfg.name,
        "rows": args.episodes,
        "context": args.context,
        "steps_per_round": args.max_new_tokens,
        "rounds": args.rounds,
        "torch_threads": torch.get_num_threads(),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "median_step_ms": medians,
        "speedup_slots_over_concatenation": round(medians["concatenation"] / medians["slots"], 2),
    }


def print_cache(result: dict[str, Any]) -> None:
    print(
        f"\ndecode steps: {result['model']}, {result['rows']} rows after {result['context']} tokens, "
        f"{result['steps_per_round']} steps x {result['rounds']} rounds, {result['torch_threads']} threads, "
        f"load average {result['load_average_1m']}"
    )
    for side, ms in result["median_step_ms"].items():
        print(f"{side:<15}{ms:>10.1f} ms a step")
    print(f"slots / concatenation speed-up: {result['speedup_slots_over_concatenation']:.2f}x")


def peak_rss_of_serve(args: argparse.Namespace, max_concurrent: int | None) -> dict[str, float]:
    """In this (fresh) process: load the model, serve ``args.episodes`` one-turn requests; the resident memory
    after loading and at its peak (GiB), and the serve call's wall time."""
    cfg = model_config(args.tiny)
    engine = TransformersEngine(
        load_model(cfg, args.cache_dir),
        load_tokenizer(cfg, args.cache_dir),
        max_new_tokens=args.max_new_tokens,
        temperature=0.0,
        max_concurrent=max_concurrent,
    )
    generator = torch.Generator().manual_seed(0)
    requests = [
        Request([], prompt_ids=torch.randint(100, 1000, (args.context,), generator=generator).tolist())
        for _ in range(args.episodes)
    ]
    loaded = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    start = time.perf_counter()
    engine.serve(requests, lambda index, generation: None)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # Linux: KiB
    return {"loaded_gib": round(loaded, 2), "peak_gib": round(peak, 2), "seconds": round(seconds, 1)}


def serve_conditions(args: argparse.Namespace) -> dict[str, Any]:
    """What a serve-call part ran: model, requests, prompt and completion lengths, threads, machine load."""
    return {
        "model": model_config(args.tiny).name,
        "requests": args.episodes,
        "context": args.context,
        "max_new_tokens": args.max_new_tokens,
        "torch_threads": torch.get_num_threads(),
        "load_average_1m": round(os.getloadavg()[0], 2),
    }


def bench_memory(args: argparse.Namespace) -> dict[str, Any]:
    """Peak memory of one serve call, unbounded against ``--max-concurrent`` rows, each side in a fresh process."""
    sides = {"all at once": None, f"at most {args.max_concurrent}": args.max_concurrent}
    results = {}
    with ProcessPoolExecutor(
        1, mp_context=multiprocessing.get_context("spawn"), max_tasks_per_child=1
    ) as pool:
        for side, bound in sides.items():
            results[side] = pool.submit(peak_rss_of_serve, args, bound).result()
    unbounded, bounded = results.values()
    decode_growth = {side: r["peak_gib"] - r["loaded_gib"] for side, r in results.items()}
    return {
        **serve_conditions(args),
        "sides": results,
        "peak_ratio_unbounded_over_bounded": round(unbounded["peak_gib"] / bounded["peak_gib"], 2),
        "growth_ratio_unbounded_over_bounded": round(
            decode_growth["all at once"] / max(decode_growth[f"at most {args.max_concurrent}"], 1e-3), 2
        ),
        "time_ratio_bounded_over_unbounded": round(bounded["seconds"] / unbounded["seconds"], 2),
    }


def print_memory(result: dict[str, Any]) -> None:
    print(
        f"\nserve: {result['model']}, {result['requests']} one-turn requests of {result['context']} prompt tokens, "
        f"{result['max_new_tokens']} new tokens each, {result['torch_threads']} threads, "
        f"load average {result['load_average_1m']}"
    )
    print(f"{'rows decoded at once':<22}{'RSS loaded':>12}{'RSS peak':>12}{'time':>10}")
    for side, r in result["sides"].items():
        print(f"{side:<22}{r['loaded_gib']:>10.2f} G{r['peak_gib']:>10.2f} G{r['seconds']:>9.1f}s")
    print(
        f"peak, all at once / bounded: {result['peak_ratio_unbounded_over_bounded']:.2f}x "
        f"(growth over the loaded model {result['growth_ratio_unbounded_over_bounded']:.2f}x); "
        f"time, bounded / all at once: {result['time_ratio_bounded_over_unbounded']:.2f}x"
    )


def greedy_completions(
    args: argparse.Namespace, model: Any, tokenizer: Any, dtype: str | None, rows: int | None
) -> list[list[int]]:
    """The completion ids of the invariance part's requests, decoded greedily at most ``rows`` at a time."""
    engine = TransformersEngine(
        model, tokenizer, args.max_new_tokens, temperature=0.0, compute_dtype=dtype, max_concurrent=rows
    )
    generator = torch.Generator().manual_seed(0)
    lengths = torch.randint(args.context // 2, args.context + 1, (args.episodes,), generator=generator)
    prompts = [torch.randint(100, 1000, (int(n),), generator=generator).tolist() for n in lengths]
    completions: dict[int, list[int]] = {}
    engine.serve(
        [Request([], prompt_ids=prompt) for prompt in prompts],
        lambda index, generation: completions.__setitem__(index, generation.completion_ids),
    )
    return [completions[index] for index in range(len(prompts))]


def bench_invariance(args: argparse.Namespace) -> dict[str, Any]:
    """Per precision, how many greedy completions decoded beside other rows differ from one-at-a-time decodes."""
    cfg = model_config(args.tiny)
    model, tokenizer = load_model(cfg, args.cache_dir), load_tokenizer(cfg, args.cache_dir)
    sides = {f"at most {args.max_concurrent}": args.max_concurrent, "all at once": None}
    results = {}
    for precision, dtype in (("float32", None), ("bfloat16 autocast", "bfloat16")):
        alone = greedy_completions(args, model, tokenizer, dtype, 1)
        for side, rows in sides.items():
            batched = greedy_completions(args, model, tokenizer, dtype, rows)
            parted = [
                next((i for i, (a, b) in enumerate(zip(x, y, strict=False)) if a != b), min(len(x), len(y)))
                for x, y in zip(alone, batched, strict=True)
                if x != y
            ]
            results[f"{precision}, {side}"] = {"differ": len(parted), "first_differing_token": parted}
    return {**serve_conditions(args), "sides": results}


def print_invariance(result: dict[str, Any]) -> None:
    print(
        f"\ngreedy decodes against one at a time: {result['model']}, {result['requests']} requests of up to "
        f"{result['context']} prompt tokens, {result['max_new_tokens']} new tokens, load average "
        f"{result['load_average_1m']}"
    )
    print(f"{'precision, rows at once':<34}{'completions that differ':>26}  first differing token")
    for side, r in result["sides"].items():
        print(f"{side:<34}{r['differ']:>18} of {result['requests']:<5}  {r['first_differing_token']}")


# Each part: (run, print). GRPO step time against bare TRL is scripts/bench/grpo_step.py.
PARTS: dict[str, tuple[Callable[[argparse.Namespace], dict[str, Any]], Callable[[dict[str, Any]], None]]] = {
    "rollout": (bench_rollout, print_rollout),
    "cache": (bench_cache, print_cache),
    "memory": (bench_memory, print_memory),
    "invariance": (bench_invariance, print_invariance),
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
    parser.add_argument("--temperature", type=float, default=0.0, help="0 decodes greedily")
    parser.add_argument("--context", type=int, default=220, help="cached tokens in the decode-step timing")
    parser.add_argument("--rounds", type=int, default=2, help="cache part: alternating rounds of each side")
    parser.add_argument(
        "--max-concurrent", type=int, default=16, help="memory and invariance parts: the bounded side's rows"
    )
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
    merged[args.part if args.temperature <= 0 else f"{args.part}_temperature_{args.temperature:g}"] = result
    out.write_text(json.dumps(merged, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
