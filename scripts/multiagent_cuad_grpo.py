"""Two routed policies and a two-judge panel train GRPO on CUAD search (agenttune.multiagent.graph).

    python scripts/multiagent_cuad_grpo.py                      # tiny random model, 2 GRPO steps (CPU)
    python scripts/multiagent_cuad_grpo.py model=smollm2_135m   # any train.py override

The policies share the trainer's live weights and differ in sampling: ``explorer`` (temperature 1.0) and
``focused`` (0.5); a round-robin router gives each training step to one of them. The judges are the project's
LLMJudge with one rubric each, over a scripted grader engine (no second LLM on this CPU): ``reference`` replies
``SCORE: <token F1 of the answer against the gold clause>``, ``brevity`` ``SCORE: 1/(1 + words/20)`` for a non-empty
answer. Prints and writes ``outputs/multiagent_cuad_grpo/summary.json``: the policy of each step, the judged
rewards, each agent's trajectory scores and the wall time (CPU, this machine).
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import sys
import time
from pathlib import Path

from hydra.utils import instantiate

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agenttune.benchmarks.base import load_benchmark  # noqa: E402
from agenttune.config import ModelConfig, repo_root  # noqa: E402
from agenttune.engines import build_engine  # noqa: E402
from agenttune.engines.scripted import ScriptedEngine  # noqa: E402
from agenttune.events.io import load_jsonl  # noqa: E402
from agenttune.multiagent.graph import (  # noqa: E402
    JudgeNode,
    PolicyNode,
    RolloutJudgeGraph,
    round_robin,
    trajectory_scores,
)
from agenttune.rewards.answer import token_f1  # noqa: E402
from agenttune.rewards.judge import LLMJudge  # noqa: E402
from agenttune.stages.policy import load_policy, typed  # noqa: E402
from agenttune.training import TrainingData, algorithm_config, build_trainer, train  # noqa: E402
from agenttune.training.rollouts import EpisodeRollouts, engine_sampling  # noqa: E402

OUT = Path(repo_root()) / "outputs" / "multiagent_cuad_grpo"
DEFAULTS = [
    "benchmark=cuad_search", "model=tiny_random", "model.max_new_tokens=32", "strategy.max_turns=2",
    "harness.max_steps=2", "harness.snippet_chars=320", "benchmark.num_train=2", "benchmark.max_docs=20",
    "algorithm=grpo", "algorithm.max_steps=2", "algorithm.beta=0", "algorithm.num_generations=2",
    "algorithm.per_device_batch_size=2", "algorithm.save_steps=100", "logger=none",
]  # fmt: skip
RUBRIC = (
    "Question: {question}\nReference: {reference}\nAnswer: {answer}\nDoes the answer give the reference clause?",
)


def grader(score):
    def reply(conversation, tools):
        prompt = conversation[-1]["content"]
        reference = re.search(r"Reference: (.*)", prompt).group(1)
        answer = re.search(r"Answer: (.*)", prompt).group(1)
        return {"content": f"SCORE: {score(answer, reference):.3f}"}

    return ScriptedEngine(reply)


def main(overrides: list[str]) -> None:
    from tests.conftest import compose_config

    cfg = compose_config([*DEFAULTS, *overrides], OUT)
    shutil.rmtree(OUT / "judged", ignore_errors=True)
    benchmark = load_benchmark(cfg)
    tasks = benchmark.tasks("train")
    model, tokenizer = load_policy(cfg)
    model_cfg = typed(cfg.model, ModelConfig)

    def policy(name: str, temperature: float) -> PolicyNode:
        sampled = dataclasses.replace(model_cfg, temperature=temperature)
        rollouts = EpisodeRollouts(
            tasks, benchmark.harness, instantiate(cfg.strategy), benchmark.reward(),
            make_engine=lambda live: build_engine(sampled, live, tokenizer), sampling=engine_sampling(sampled),
            log_dir=OUT / "eventlogs" / name, source=benchmark.name, record=benchmark.record,
        )  # fmt: skip
        return PolicyNode(name, rollouts)

    columns = lambda log, task: (task.question, task.answer)  # noqa: E731
    judges = [
        JudgeNode("reference", LLMJudge(grader(token_f1), RUBRIC, name="reference"), columns),
        JudgeNode(
            "brevity",
            LLMJudge(grader(lambda a, r: 1 / (1 + len(a.split()) / 20)), RUBRIC, name="brevity"),
            columns,
        ),
    ]
    graph = RolloutJudgeGraph(
        [policy("explorer", 1.0), policy("focused", 0.5)],
        judges,
        round_robin(["explorer", "focused"]),
        OUT / "judged",
    )
    start = time.perf_counter()
    trainer = build_trainer(
        algorithm_config(cfg.algorithm),
        model,
        tokenizer,
        TrainingData(),
        str(OUT / "checkpoints"),
        rollouts=graph,
    )
    train(trainer)
    judged = [log for path in sorted((OUT / "judged").glob("*.jsonl")) for log in load_jsonl(path)]
    summary = {
        "global_step": trainer.state.global_step,
        "routed": graph.routed,
        "judged_episodes": len(judged),
        "judge_scores": [
            {k: round(v, 3) for k, v in log.rewards().items() if k.startswith("judge/") or k == "total"}
            for log in judged
        ],
        "trajectory": trajectory_scores(judged),
        "wall_s": round(time.perf_counter() - start, 1),
        "hardware": "CPU (see README)",
    }
    (OUT / "summary.json").write_text(json.dumps(summary, indent=2))
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main(sys.argv[1:])
