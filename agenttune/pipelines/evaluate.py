"""``pipeline=evaluate``: one evaluation phase of any benchmark (``eval/<metric>`` in the summary).

``harness.agent=policy`` (the default) runs the policy (``model``, or ``init_from``) through the ``model`` group's
engine, batched over the tasks; any other value names one of the benchmark's scripted agents (``oracle``, and for
tau2 the perturbed oracles) and plays each task with it. With ``harness.toolgraph.enabled`` every domain's episodes
run inside its ToolGraph controller (graph from the benchmark's domain facts, unfitted). Episodes go to
``eventlogs/eval.jsonl``; a benchmark with a public leaderboard format (tau2) also writes ``submission.json``.

    python train.py +experiment=legalbench_rag_transfer init_from=<a CUAD policy>/checkpoints/final
    python train.py +experiment=tau2_oracle benchmark=tau2_retail
    python train.py +experiment=tau2_leaderboard harness.user_model.engine=openai harness.user_model.name=gpt-4.1
"""

from __future__ import annotations

import json
import logging

from omegaconf import DictConfig

from agenttune.benchmarks.base import load_benchmark
from agenttune.events import read_jsonl
from agenttune.stages.phases import evaluate, policy_engine, toolgraph_controllers
from agenttune.stages.policy import load_policy
from agenttune.tracking.run import RunContext

log = logging.getLogger(__name__)


def run(cfg: DictConfig, run: RunContext) -> None:
    benchmark = load_benchmark(cfg)
    kind = cfg.harness.agent
    if kind == "policy":
        model, tokenizer = load_policy(cfg)
        agent = policy_engine(cfg, model, tokenizer)
    else:
        agent = lambda task: benchmark.teacher(task, None, kind)  # noqa: E731
    controllers = toolgraph_controllers(cfg, benchmark) if cfg.harness.toolgraph.enabled else None
    evaluate(cfg, run, benchmark, agent, benchmark.tasks("eval"), "eval", controllers)
    run.set_summary({"eval/agent": kind})
    submission = benchmark.submission(read_jsonl(run.eventlog_dir / "eval.jsonl").logs)
    if submission is not None:
        path = run.dir / "submission.json"
        path.write_text(json.dumps(submission, indent=2) + "\n")
        log.info("wrote %s", path)
