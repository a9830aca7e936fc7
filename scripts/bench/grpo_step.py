"""GRPO step time: agenttune's trainer (``build_trainer`` with episode rollouts) against TRL's GRPOTrainer built
directly, on the same model, prompts, reward and hyperparameters, in one invocation.

    python scripts/bench/grpo_step.py                                   # both parts, tiny random model (smoke)
    python scripts/bench/grpo_step.py --model smollm2 --init-from CKPT  # SmolLM2-135M warm-started to call search
    python scripts/bench/grpo_step.py --part multi --model smollm2 --steps 4 --rounds 2

Part ``single`` (target: agenttune / bare TRL <= 1.10). Single-turn sampling of a few user prompts with no tools:
agenttune's GRPO samples them as one-turn episodes of its episode loop (``RecordedTurnHarness``, the transformers
engine around the live policy, every rollout written to an EventLog and scored from it); bare TRL samples the same
prompts with its own generation; both score with the same reward mix (similarity to a reference reply plus the
tool-call format reward: ``adp_samples``' recorded-turn reward).
``--max-completion-length`` is TRL's cap and the engine's ``max_new_tokens``.

Part ``multi`` (target: bare TRL / agenttune >= 1.5). Multi-turn GRPO with the ``search`` tool over CUAD: each
step samples ``--prompts`` questions x ``--num-generations`` completions (8 by default) at temperature 1.0 on
both sides. agenttune: ``EpisodeRollouts`` as TRL's ``rollout_func`` (ReAct + ``SearchCorpusHarness`` + the
continuously batched transformers engine), scored from the EventLog by the ``cuad_search`` reward mix
(``agenttune.benchmarks.search``: components and columns, weights read from ``conf/reward/cuad_search.yaml``).
Bare TRL: ``environment_factory`` with an environment (defined here) whose ``search(query)`` runs the same
harness, and a reward function giving the same mix the same columns (final reply, chunks shown, searches made,
gold answer and evidence). Both open with the same conversation (the harness's system prompt and the question).
agenttune's loss forward encodes each prompt once per group (``algorithm.share_prompt``,
``agenttune.training.shared_prompt``); a third side, ``agenttune_trl_forward``, runs agenttune's rollouts with TRL's
own forward (one full row per completion), which splits the difference between the loops and the forward.
Budgets:

* per turn: agenttune's engine stops a turn after ``--turn-tokens`` (``max_new_tokens``); TRL gets the same cap
  through ``GRPOConfig.generation_kwargs={"max_new_tokens": ...}``;
* turns: the strategy's ``max_turns`` = ``--max-turns`` model turns (the harness's ``max_steps`` is the same, so
  it allows as many searches); TRL: ``max_tool_calling_iterations = --max-turns - 1``, also ``--max-turns``
  model turns (TRL does not run the calls of its last turn; agenttune's harness does, one search more at most);
* whole completion: TRL's ``max_completion_length`` (``--multi-max-completion-length``) caps model and tool
  tokens together (a tool result that would cross it is dropped and the sample ends); agenttune has no such cap,
  its completions are bounded by turns x turn tokens plus the tool results (``--top-k`` hits of at most
  ``--snippet-chars`` characters each). The default leaves room for every turn on both sides.

Each side's mean tool calls per completion and mean completion tokens (model-generated, tool results excluded;
TRL's ``completions/mean_length`` on both sides) are reported, to show whether the loops did comparable work.
Without ``--init-from`` (a checkpoint warm-started on search trajectories, e.g. a ``cuad_distill`` run's
``checkpoints/final``) the base model rarely calls the tool and both loops do little multi-turn work.

Measurement: each side runs ``--steps`` optimizer steps from the same fresh weights (seed 0), in alternating
rounds (agenttune, agenttune_trl_forward, bare, agenttune, ...); a step's time runs from ``on_step_begin`` to ``on_step_end``
(generation, tool calls, rewards, loss and update), its rollout time from ``on_step_begin`` until the rollouts are
done (agenttune: ``rollout_func`` returns; bare TRL: its reward function is called, right after generation); the
first step of each run is dropped as warm-up; tables report medians. Writes JSON (``--out``, default ``outputs/bench/grpo_step.json``), one key per part
(``single_turn``, ``multi_turn``) merged into what the file holds.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import os
import platform
import statistics
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
from datasets import Dataset
from omegaconf import OmegaConf
from transformers import TrainerCallback

from agenttune.agents.strategies import ReAct
from agenttune.benchmarks.adp_samples import recorded_turn_reward
from agenttune.benchmarks.cuad.dataset import corpus_for, cuad_questions, dataset_rows
from agenttune.benchmarks.search import SEARCH_REWARDS, search_columns
from agenttune.config import ModelConfig, RewardConfig
from agenttune.engines import build_engine
from agenttune.events.schema import Event, ToolCallPayload
from agenttune.harness.recorded_turns import RecordedTurn, RecordedTurnHarness
from agenttune.harness.search_corpus import SearchCorpusHarness
from agenttune.models import load_model, load_tokenizer
from agenttune.rag.sqlite_fts import SqliteFtsRetriever
from agenttune.rewards.episode import EpisodeReward
from agenttune.rewards.mix import RewardMix
from agenttune.training import MetricsCallback, TrainingData, build_trainer, train
from agenttune.training.arguments import on_policy_arguments
from agenttune.training.grpo import GRPOAlgorithmConfig
from agenttune.training.rollouts import EpisodeRollouts, engine_sampling

REPO_ROOT = Path(__file__).resolve().parents[2]
MODELS = {"tiny_random": "tiny_random", "smollm2": "embedded:smollm2_135m"}
# Single-turn prompts and the replies the reward compares with.
RECORDED = [
    ("What is the capital of France?", "The capital of France is Paris."),
    ("Who wrote Hamlet?", "William Shakespeare wrote Hamlet."),
    ("How many legs has a spider?", "A spider has eight legs."),
    ("Say hello.", "Hello!"),
]
CUAD_CHUNKING = {"chunk_size": 1200, "chunk_overlap": 200}  # the cuad_search benchmark's
# Metrics each side logs through TRL, averaged over the timed steps.
AGENTTUNE_WORK = {"tool_calls": "episodes/tool_calls", "completion_tokens": "completions/mean_length"}
WORK_METRICS = {
    "agenttune": AGENTTUNE_WORK,
    "agenttune_trl_forward": AGENTTUNE_WORK,
    "bare_trl": {"tool_calls": "tools/call_frequency", "completion_tokens": "completions/mean_length"},
}


class StepTimer(TrainerCallback):
    """Wall time of each optimizer step, and of its rollouts (from the step's start until they are done)."""

    def __init__(self):
        self.times: list[float] = []
        self.rollout_times: list[float] = []

    def on_step_begin(self, args, state, control, **kwargs):
        self.started = time.perf_counter()

    def rollouts_done(self) -> None:
        self.rollout_times.append(time.perf_counter() - self.started)

    def on_step_end(self, args, state, control, **kwargs):
        self.times.append(time.perf_counter() - self.started)


def model_config(args: argparse.Namespace, max_new_tokens: int) -> ModelConfig:
    """The policy's config; the engine samples at temperature 1.0 (TRL's default) with ``max_new_tokens``."""
    return ModelConfig(
        name=args.model, path=MODELS[args.model], max_new_tokens=max_new_tokens, temperature=1.0, top_p=1.0
    )


class TimedRollouts(EpisodeRollouts):
    """EpisodeRollouts that tell the step timer when a step's rollouts are done."""

    def __init__(self, *args, timer: StepTimer, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.timer = timer

    def __call__(self, prompts, trainer):
        output = super().__call__(prompts, trainer)
        self.timer.rollouts_done()
        return output


def timed_reward(reward: Callable, timer: StepTimer) -> Callable:
    """``reward``, telling the step timer that the rollouts are done when TRL first calls it after generating."""

    @functools.wraps(reward)
    def scored(*args, **kwargs):
        timer.rollouts_done()
        return reward(*args, **kwargs)

    return scored


def episode_rollouts(
    tasks, make_harness, strategy, reward, model_cfg, tokenizer, output_dir, timer
) -> EpisodeRollouts:
    """agenttune's rollouts as a run builds them (``stages.policy.episode_rollouts``), logs written too."""
    return TimedRollouts(
        tasks,
        make_harness,
        strategy,
        reward,
        make_engine=lambda model: build_engine(model_cfg, model, tokenizer),
        sampling=engine_sampling(model_cfg),
        log_dir=Path(output_dir) / "eventlogs" / "train",
        source="bench",
        timer=timer,
    )


def agenttune_trainer(algorithm, model, tokenizer, output_dir, timer, rollouts):
    """agenttune's GRPO as a pipeline builds it, MetricsCallback included."""
    return build_trainer(
        algorithm,
        model,
        tokenizer,
        TrainingData(),
        output_dir,
        rollouts=rollouts,
        callbacks=[MetricsCallback(lambda metrics, step: None), timer],
    )


def bare_trainer(algorithm, model, tokenizer, output_dir, timer, data, reward, **options):
    """GRPOTrainer as a user of TRL would write it, with the same hyperparameters."""
    from trl import GRPOConfig, GRPOTrainer

    environment_factory = options.pop("environment_factory", None)
    args = GRPOConfig(
        **on_policy_arguments(algorithm, output_dir),
        loss_type=algorithm.loss_type,
        temperature=1.0,
        **options,
    )
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="You are using 'environment_factory'")
        return GRPOTrainer(
            model=model,
            reward_funcs=[timed_reward(reward, timer)],
            args=args,
            train_dataset=data,
            processing_class=tokenizer,
            environment_factory=environment_factory,
            callbacks=[timer],
        )


def timed_steps(trainer, timer: StepTimer) -> tuple[list[float], list[float], dict[int, dict[str, float]]]:
    """Train; return the step times and rollout times after the first step, and the logged metrics of those steps."""
    train(trainer)
    logged = {
        entry["step"]: entry for entry in trainer.state.log_history if "step" in entry and "loss" in entry
    }
    return (
        timer.times[1:],
        timer.rollout_times[1:],
        {step: logged[step] for step in sorted(logged) if step > 1},
    )


def compare(args, name: str, builders: dict[str, Callable[[Any, Any, str, StepTimer], Any]]) -> dict:
    """Alternating rounds of every side; medians, step times and the work metrics of the timed steps."""
    model_cfg = ModelConfig(name=args.model, path=MODELS[args.model])
    times: dict[str, list[float]] = {side: [] for side in builders}
    rollout_times: dict[str, list[float]] = {side: [] for side in builders}
    metrics: dict[str, list[dict]] = {side: [] for side in builders}
    for round_index in range(args.rounds):
        for side in builders:
            print(f"[{name}] round {round_index + 1}/{args.rounds}: {side}", flush=True)
            tokenizer = load_tokenizer(model_cfg, args.cache_dir, args.init_from)
            model = load_model(model_cfg, args.cache_dir, args.init_from, seed=0)
            timer = StepTimer()
            with tempfile.TemporaryDirectory() as output_dir:
                trainer = builders[side](model, tokenizer, output_dir, timer)
                step_times, rollouts, logged = timed_steps(trainer, timer)
            times[side] += step_times
            rollout_times[side] += rollouts
            metrics[side] += logged.values()
    medians = {side: statistics.median(values) for side, values in times.items()}
    work = {
        side: {
            **{
                key: _mean(entry.get(metric) for entry in metrics[side])
                for key, metric in WORK_METRICS[side].items()
            },
            "reward": _mean(entry.get("reward") for entry in metrics[side]),
        }
        for side in builders
    }
    return {
        "median_step_s": medians,
        "step_times_s": times,
        "median_rollout_s": {side: statistics.median(values) for side, values in rollout_times.items()},
        "rollout_times_s": rollout_times,
        "per_completion": work,
    }


def _mean(values) -> float | None:
    """The mean of the values logged (None when the metric was never logged, e.g. tool calls without tools)."""
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def _cell(value: float | None, width: int, digits: int) -> str:
    return f"{'-':>{width}}" if value is None else f"{value:>{width}.{digits}f}"


def print_table(title: str, report: dict) -> None:
    print(f"\n{title}")
    print(
        f"{'side':<22} {'median step (s)':>16} {'rollouts (s)':>13} {'steps':>6} {'tool calls':>11} "
        f"{'compl. tokens':>14} {'reward':>7}"
    )
    for side, work in report["per_completion"].items():
        print(
            f"{side:<22} {report['median_step_s'][side]:>16.3f} {report['median_rollout_s'][side]:>13.3f} "
            f"{len(report['step_times_s'][side]):>6} "
            f"{_cell(work['tool_calls'], 11, 2)} {_cell(work['completion_tokens'], 14, 1)} {_cell(work['reward'], 7, 3)}"
        )


def algorithm_config(args, max_completion_length: int) -> GRPOAlgorithmConfig:
    return GRPOAlgorithmConfig(
        name="grpo",
        max_steps=args.steps,
        per_device_batch_size=args.prompts,
        num_generations=args.num_generations,
        max_completion_length=max_completion_length,
        save_steps=10**6,
        beta=0.0,
    )


# ----------------------------------------------------------------------------------------------- single turn


def single_turn_part(args: argparse.Namespace) -> dict:
    tasks = [
        RecordedTurn(id=f"turn-{i}", prompt=[{"role": "user", "content": q}], reference=r)
        for i, (q, r) in enumerate(RECORDED)
    ]
    algorithm = algorithm_config(args, args.max_completion_length)
    model_cfg = model_config(args, args.max_completion_length)
    data = Dataset.from_list([{"prompt": task.prompt, "reference": task.reference} for task in tasks])

    def agenttune(model, tokenizer, output_dir, timer):
        rollouts = episode_rollouts(
            tasks,
            lambda task: RecordedTurnHarness(),
            ReAct(),
            recorded_turn_reward(),
            model_cfg,
            tokenizer,
            output_dir,
            timer,
        )
        return agenttune_trainer(algorithm, model, tokenizer, output_dir, timer, rollouts)

    def bare(model, tokenizer, output_dir, timer):
        reward = recorded_turn_reward().mix  # the same mix, as a TRL reward function
        return bare_trainer(algorithm, model, tokenizer, output_dir, timer, data, reward)

    report = compare(args, "single", {"agenttune": agenttune, "bare_trl": bare})
    report["ratio_agenttune_over_bare"] = (
        report["median_step_s"]["agenttune"] / report["median_step_s"]["bare_trl"]
    )
    report["target"] = "agenttune / bare TRL <= 1.10"
    report["max_completion_length"] = args.max_completion_length
    print_table("single turn (no tools)", report)
    print(f"ratio agenttune / bare TRL: {report['ratio_agenttune_over_bare']:.3f} (target <= 1.10)")
    return report


# ------------------------------------------------------------------------------------------------ multi turn

BUDGET_SPENT = "The search budget of this episode is used up; answer now."


class SearchEnvironment:
    """The search harness as a TRL ``environment_factory`` environment: ``search`` runs a SearchCorpusHarness step.

    TRL makes one per rollout and calls ``reset(**row)`` with the dataset row; its public methods are the tools.
    """

    def __init__(self, make_harness: Callable[[Any], SearchCorpusHarness], questions: dict[str, Any]) -> None:
        self._make_harness, self._questions = make_harness, questions
        self._harness: SearchCorpusHarness | None = None
        self._question: Any = None
        self._calls = 0
        self._shown_spans: list[list] = []

    def reset(self, **row: Any) -> None:
        self._question = self._questions[row["id"]]
        self._harness = self._make_harness(self._question)
        self._harness.reset(self._question)
        self._calls = 0
        self._shown_spans = []

    def search(
        self, query: str
    ):  # no return annotation: TRL would add it to the schema, the harness does not
        """Search the document collection for passages relevant to a query.

        Args:
            query: Keywords or a question describing the passages to find.
        """
        if self._harness is None:
            raise RuntimeError("SearchEnvironment.search called before reset()")
        if self._harness.info().get("termination"):
            return BUDGET_SPENT
        self._calls += 1
        payload = ToolCallPayload(call_id=f"call_{self._calls}", name="search", arguments={"query": query})
        result = self._harness.step(Event(payload=payload, actor="agent", step=self._calls))
        for observation in result.observations:  # what ``shown_spans`` reads from an EventLog
            if not getattr(observation.payload, "is_error", True):
                self._shown_spans += [list(span) for span in observation.payload.metadata.get("spans", [])]
        return "\n".join(getattr(o.payload, "content", "") for o in result.observations)

    def _retrieved_chunk_ids(self) -> list[str]:
        return self._harness.info()["retrieved_chunk_ids"] if self._harness else []


def final_reply(completion: list[dict[str, Any]]) -> str:
    """The last assistant text of a TRL conversational completion (``search_columns``'s ``completion``)."""
    texts = [m.get("content") or "" for m in completion if m.get("role") == "assistant"]
    texts = [t for t in texts if t.strip()]
    return texts[-1] if texts else ""


def trl_search_reward(mix: RewardMix) -> Callable:
    """``mix`` on the columns ``search_columns`` reads from an EventLog, read here from TRL's rollouts."""

    def search_reward(completions, environments, log_metric=None, **row) -> list[float]:
        columns = {key: row[key] for key in ("answer", "answer_aliases", "gold_chunk_ids", "hops")}
        columns["retrieved_chunk_ids"] = [env._retrieved_chunk_ids() for env in environments]
        columns["num_searches"] = [env._calls for env in environments]
        columns["shown_spans"] = [env._shown_spans for env in environments]
        columns["gold_spans"] = [env._question.gold_spans for env in environments]
        return mix([final_reply(c) for c in completions], log_metric=log_metric, **columns)

    return search_reward


def search_mix() -> RewardMix:
    """The ``reward=cuad_search`` mix, weights read from its config file."""
    weights = OmegaConf.load(REPO_ROOT / "conf" / "reward" / "cuad_search.yaml").weights
    config = RewardConfig(name="cuad_search", weights=dict(weights))
    return RewardMix.from_config(config, SEARCH_REWARDS)


def multi_turn_part(args: argparse.Namespace) -> dict:
    started = time.perf_counter()
    questions = cuad_questions("single_hop", "train", limit=args.questions, seed=0, **CUAD_CHUNKING)
    chunks = corpus_for(questions, args.max_docs, seed=0, **CUAD_CHUNKING)
    retriever = SqliteFtsRetriever(cache_dir=args.cache_dir, k=args.top_k).build(chunks)
    print(
        f"[multi] {len(questions)} CUAD questions, {len(chunks)} chunks indexed ({time.perf_counter() - started:.1f}s)"
    )

    def make_harness(task: Any = None) -> SearchCorpusHarness:
        """A fresh search harness for an episode (of ``task``; every task gets the same kind)."""
        return SearchCorpusHarness(
            retriever, top_k=args.top_k, max_steps=args.max_turns, snippet_chars=args.snippet_chars
        )

    algorithm = algorithm_config(args, args.multi_max_completion_length)
    model_cfg = model_config(args, args.turn_tokens)
    by_id = {q.id: q for q in questions}
    # the conversations agenttune's episodes open with (the harness's system prompt and the question)
    openings = EpisodeRollouts(questions, make_harness, ReAct(), None, None, {}).prompts
    rows = [
        {**row, "prompt": opening} for row, opening in zip(dataset_rows(questions), openings, strict=True)
    ]
    data = Dataset.from_list(rows)

    def agenttune(model, tokenizer, output_dir, timer, algorithm=algorithm):
        reward = EpisodeReward(search_mix(), search_columns)
        strategy = ReAct(max_turns=args.max_turns)
        rollouts = episode_rollouts(
            questions, make_harness, strategy, reward, model_cfg, tokenizer, output_dir, timer
        )
        return agenttune_trainer(algorithm, model, tokenizer, output_dir, timer, rollouts)

    # agenttune's rollouts with TRL's loss forward (one full row per completion): splits the gain in two
    trl_forward = functools.partial(agenttune, algorithm=dataclasses.replace(algorithm, share_prompt=False))

    def bare(model, tokenizer, output_dir, timer):
        return bare_trainer(
            algorithm,
            model,
            tokenizer,
            output_dir,
            timer,
            data,
            trl_search_reward(search_mix()),
            environment_factory=functools.partial(SearchEnvironment, make_harness, by_id),
            max_tool_calling_iterations=args.max_turns - 1,
            generation_kwargs={"max_new_tokens": args.turn_tokens},
        )

    report = compare(
        args, "multi", {"agenttune": agenttune, "agenttune_trl_forward": trl_forward, "bare_trl": bare}
    )
    report["speedup_bare_over_agenttune"] = (
        report["median_step_s"]["bare_trl"] / report["median_step_s"]["agenttune"]
    )
    report["speedup_trl_forward_over_agenttune"] = (
        report["median_step_s"]["agenttune_trl_forward"] / report["median_step_s"]["agenttune"]
    )
    report["rollout_speedup_bare_over_agenttune"] = (
        report["median_rollout_s"]["bare_trl"] / report["median_rollout_s"]["agenttune"]
    )
    report["target"] = "bare TRL / agenttune >= 1.5"
    report["budgets"] = {
        "turn_tokens": args.turn_tokens,
        "max_turns": args.max_turns,
        "harness_max_steps": args.max_turns,
        "trl_max_tool_calling_iterations": args.max_turns - 1,
        "trl_max_completion_length": args.multi_max_completion_length,
        "top_k": args.top_k,
        "snippet_chars": args.snippet_chars,
        "questions": len(questions),
        "indexed_chunks": len(chunks),
    }
    print_table("multi turn (search tool over CUAD, sampled at T=1.0)", report)
    print(f"speed-up bare TRL / agenttune: {report['speedup_bare_over_agenttune']:.3f} (target >= 1.5)")
    print(f"rollouts alone, bare TRL / agenttune: {report['rollout_speedup_bare_over_agenttune']:.3f}")
    print(
        "agenttune with TRL's loss forward / agenttune (the shared-prompt forward's part): "
        f"{report['speedup_trl_forward_over_agenttune']:.3f}"
    )
    calls = [work["tool_calls"] for work in report["per_completion"].values()]
    if not args.init_from:
        print(
            "note: no --init-from: the base model rarely calls search, so the loops do little multi-turn work"
        )
    if any(not c for c in calls):  # zero, or never logged
        print("warning: a side made no tool calls in the timed steps; its step is single-turn work")
    return report


# ------------------------------------------------------------------------------------------------------- main


def run(args: argparse.Namespace) -> dict:
    torch.set_num_threads(os.cpu_count() or 1)
    header = {
        "model": args.model,
        "init_from": args.init_from,
        "steps_per_run": args.steps,
        "rounds": args.rounds,
        "prompts_per_step": args.prompts,
        "num_generations": args.num_generations,
        "temperature": 1.0,
        "device": "cuda" if torch.cuda.is_available() else "cpu",
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "torch_threads": torch.get_num_threads(),
    }
    results = json.loads(args.out.read_text()) if args.out.exists() else {}
    if args.part in ("single", "both"):
        results["single_turn"] = {**header, **single_turn_part(args)}
    if args.part in ("multi", "both"):
        results["multi_turn"] = {**header, **multi_turn_part(args)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2))
    print(f"wrote {args.out}")
    return results


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", choices=sorted(MODELS), default="tiny_random")
    parser.add_argument("--init-from", default=None, help="a checkpoint folder to start both sides from")
    parser.add_argument("--part", choices=("single", "multi", "both"), default="both")
    parser.add_argument("--steps", type=int, default=5, help="optimizer steps per run (the first is warm-up)")
    parser.add_argument("--rounds", type=int, default=2, help="alternating runs of each side")
    parser.add_argument("--prompts", type=int, default=2, help="prompts per step")
    parser.add_argument("--num-generations", type=int, default=4)
    parser.add_argument(
        "--max-completion-length", type=int, default=24, help="single turn: tokens per completion"
    )
    parser.add_argument(
        "--turn-tokens", type=int, default=64, help="multi turn: max new tokens per model turn"
    )
    parser.add_argument("--max-turns", type=int, default=3, help="multi turn: model turns per episode")
    parser.add_argument(
        "--multi-max-completion-length",
        type=int,
        default=1024,
        help="multi turn: TRL's cap on a whole completion, tool results included",
    )
    parser.add_argument("--top-k", type=int, default=3, help="multi turn: hits per search")
    parser.add_argument("--snippet-chars", type=int, default=300, help="multi turn: characters shown per hit")
    parser.add_argument(
        "--questions", type=int, default=8, help="multi turn: CUAD train questions cycled through"
    )
    parser.add_argument("--max-docs", type=int, default=40, help="multi turn: contracts indexed")
    parser.add_argument(
        "--cache-dir", type=Path, default=Path(os.environ.get("AGENTTUNE_CACHE_DIR", REPO_ROOT / ".cache"))
    )
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "outputs" / "bench" / "grpo_step.json")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(parser)
    args = parser.parse_args()
    if args.steps < 2:
        parser.error("--steps must be at least 2: the first step of each run is dropped as warm-up")
    run(args)


if __name__ == "__main__":
    main()
