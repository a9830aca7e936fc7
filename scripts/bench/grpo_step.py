"""GRPO step time through the framework (``build_trainer``) against TRL's GRPOTrainer built directly.

    python scripts/bench/grpo_step.py                       # tiny random model, lookup-tool environment
    python scripts/bench/grpo_step.py --model smollm2 --steps 4 --max-completion-length 32

Both trainers get the same fresh weights (same seed), prompts, reward function, tool environment and
hyperparameters; the framework's trainer also carries a MetricsCallback, as in a real run. Each runs
``--steps`` optimizer steps in alternating rounds (framework, bare, framework, bare, ...); a step's time is
measured from ``on_step_begin`` to ``on_step_end`` (generation, tool calls, rewards, loss and update), the first
step of each run is dropped as warm-up, and the table reports medians and the ratio. Writes JSON (default
``outputs/bench/grpo_step.json``). The target is a ratio of at most 1.10.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

import torch
from datasets import Dataset
from transformers import TrainerCallback

from agenttune.config import AlgorithmConfig, ModelConfig
from agenttune.models import load_model, load_tokenizer
from agenttune.training import MetricsCallback, TrainingData, build_trainer, train
from agenttune.training.arguments import on_policy_arguments

REPO_ROOT = Path(__file__).resolve().parents[2]
MODELS = {"tiny_random": "tiny_random", "smollm2": "embedded:smollm2_135m"}
QUESTIONS = [
    "What is the capital of France?",
    "Who wrote Hamlet?",
    "How many legs has a spider?",
    "Say hello.",
]


class LookupEnv:
    """A small fact store the policy can query as a tool."""

    FACTS = {"france": "Paris", "hamlet": "Shakespeare", "spider": "8"}

    def reset(self, **kwargs) -> None:
        self.calls = 0

    def lookup(self, topic: str) -> str:
        """Look up a fact about a topic.

        Args:
            topic: One word naming the topic, e.g. "france".

        Returns:
            The fact, or "unknown".
        """
        self.calls += 1
        return self.FACTS.get(topic.lower(), "unknown")


def answer_length_reward(completions, environments, **kwargs) -> list[float]:
    """Length of the final answer plus a point per tool call (a cheap, varied reward)."""
    return [len(c[-1]["content"]) / 10 + env.calls for c, env in zip(completions, environments, strict=True)]


class StepTimer(TrainerCallback):
    """Wall time of each optimizer step."""

    def __init__(self):
        self.times: list[float] = []

    def on_step_begin(self, args, state, control, **kwargs):
        self.started = time.perf_counter()

    def on_step_end(self, args, state, control, **kwargs):
        self.times.append(time.perf_counter() - self.started)


def framework_trainer(algorithm, model, tokenizer, data, output_dir, timer):
    return build_trainer(
        algorithm,
        model,
        tokenizer,
        TrainingData(prompts=data),
        output_dir,
        reward_funcs=[answer_length_reward],
        environment_factory=LookupEnv,
        callbacks=[MetricsCallback(lambda metrics, step: None), timer],
    )


def bare_trainer(algorithm, model, tokenizer, data, output_dir, timer):
    """GRPOTrainer as a user of TRL would write it, with the same hyperparameters."""
    from trl import GRPOConfig, GRPOTrainer

    args = GRPOConfig(**on_policy_arguments(algorithm, output_dir), loss_type=algorithm.loss_type)
    return GRPOTrainer(
        model=model,
        reward_funcs=[answer_length_reward],
        args=args,
        train_dataset=data,
        processing_class=tokenizer,
        environment_factory=LookupEnv,
        callbacks=[timer],
    )


def run_grpo_part(args: argparse.Namespace) -> dict:
    """Time both trainers and return the report (also printed and written to ``args.out``)."""
    torch.set_num_threads(os.cpu_count() or 1)
    model_config = ModelConfig(name=args.model, path=MODELS[args.model])
    cache_dir = args.cache_dir
    tokenizer = load_tokenizer(model_config, cache_dir)
    algorithm = AlgorithmConfig(
        name="grpo",
        max_steps=args.steps,
        per_device_batch_size=args.prompts,
        num_generations=args.num_generations,
        max_completion_length=args.max_completion_length,
        save_steps=10**6,
        beta=0.0,
    )
    data = Dataset.from_dict({"prompt": [[{"role": "user", "content": q}] for q in QUESTIONS]})
    builders = {"framework": framework_trainer, "bare_trl": bare_trainer}
    times: dict[str, list[float]] = {name: [] for name in builders}
    for _ in range(args.rounds):
        for name, build in builders.items():
            timer = StepTimer()
            model = load_model(model_config, cache_dir, seed=0)
            with tempfile.TemporaryDirectory() as output_dir:
                train(build(algorithm, model, tokenizer, data, output_dir, timer))
            times[name] += timer.times[1:]
    medians = {name: statistics.median(values) for name, values in times.items()}
    report = {
        "model": args.model,
        "steps_per_run": args.steps,
        "rounds": args.rounds,
        "prompts_per_step": args.prompts,
        "num_generations": args.num_generations,
        "max_completion_length": args.max_completion_length,
        "median_step_s": medians,
        "step_times_s": times,
        "ratio": medians["framework"] / medians["bare_trl"],
        "device": "cuda" if torch.cuda.is_available() else "cpu",
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "torch_threads": torch.get_num_threads(),
    }
    print(f"{'trainer':<10} {'median step (s)':>16} {'steps':>6}")
    for name in builders:
        print(f"{name:<10} {medians[name]:>16.3f} {len(times[name]):>6}")
    print(f"ratio framework / bare TRL: {report['ratio']:.3f} (target <= 1.10)")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2))
    print(f"wrote {args.out}")
    return report


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", choices=sorted(MODELS), default="tiny_random")
    parser.add_argument("--steps", type=int, default=5, help="optimizer steps per run (the first is warm-up)")
    parser.add_argument("--rounds", type=int, default=2, help="alternating runs of each trainer")
    parser.add_argument("--prompts", type=int, default=2, help="prompts per step")
    parser.add_argument("--num-generations", type=int, default=4)
    parser.add_argument("--max-completion-length", type=int, default=24)
    parser.add_argument(
        "--cache-dir", type=Path, default=Path(os.environ.get("AGENTTUNE_CACHE_DIR", REPO_ROOT / ".cache"))
    )
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "outputs" / "bench" / "grpo_step.json")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(parser)
    run_grpo_part(parser.parse_args())


if __name__ == "__main__":
    main()
