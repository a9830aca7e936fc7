"""``pipeline=evaluate``: one evaluation phase of any benchmark (``eval/<metric>`` in the summary).

``harness.agent=policy`` (the default) runs the policy (``model``, or ``init_from``) through the ``model`` group's
engine, batched over the tasks; any other value names one of the benchmark's scripted agents (``oracle``, and for
tau2 the perturbed oracles) and plays each task with it. With ``harness.toolgraph.enabled`` every domain's episodes
run inside its ToolGraph controller (graph from the benchmark's domain facts, unfitted). Episodes go to
``eventlogs/eval.jsonl``.

    python train.py +experiment=legalbench_rag_transfer init_from=<a CUAD policy>/checkpoints/final
    python train.py +experiment=tau2_oracle benchmark=tau2_retail
"""

from __future__ import annotations

from omegaconf import DictConfig

from agenttune.benchmarks.base import load_benchmark
from agenttune.pipelines.common import load_policy
from agenttune.pipelines.stages import evaluate, policy_engine, toolgraph_controllers
from agenttune.tracking.run import RunContext


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
