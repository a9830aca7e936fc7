"""tau2 evaluation: run ``harness.agent`` on ``benchmark.domains`` tasks of ``benchmark.split`` and score them.

``harness.agent`` is ``policy`` (the model through its engine, every task's episode batched through the one
episode loop), ``oracle`` (a scripted engine replaying the gold actions; 1.0 on every task) or a perturbed oracle
kind (``skip_write``, ``repeat_read``, ``wrong_argument``, ``loop``). ``benchmark.num_eval`` > 0 keeps the first
that many tasks of each domain. With ``harness.toolgraph.enabled`` each task's harness runs inside
:class:`~agenttune.selfevolve.guard.ToolGraphHarness` and, with ``candidate_scoring``, the policy's engine inside
:class:`~agenttune.selfevolve.candidates.ToolGraphEngine` (graph from the schemas and the benchmark's domain rules
only; the ``tau2_toolgraph_dpo`` pipeline fits its weights on successful trajectories).

Episodes go to ``eventlogs/eval_<domain>.jsonl``; metrics ``eval/avg_reward`` (all episodes) and
``eval/<domain>/<metric>`` (:func:`agenttune.benchmarks.tau2.metrics.summarize`).

    python train.py +experiment=tau2_oracle benchmark=tau2_retail
    python train.py +experiment=tau2_oracle benchmark=tau2_airline harness.agent=skip_write
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from omegaconf import DictConfig

from agenttune.benchmarks.tau2.domains import load_tasks
from agenttune.benchmarks.tau2.harness import Tau2Harness
from agenttune.benchmarks.tau2.metrics import summarize
from agenttune.benchmarks.tau2.oracle import PERTURBATIONS
from agenttune.benchmarks.tau2.oracle import scripted_agent as scripted_engine_for
from agenttune.benchmarks.tau2.rules import rules_for
from agenttune.benchmarks.tau2.runner import EngineFor, run_tasks
from agenttune.config import ModelConfig
from agenttune.engines.base import Engine
from agenttune.events import EventLogWriter
from agenttune.events.schema import EventLog
from agenttune.pipelines.common import load_policy, typed
from agenttune.selfevolve.build import build_toolgraph
from agenttune.selfevolve.candidates import ToolGraphEngine
from agenttune.selfevolve.config import ToolGraphConfig
from agenttune.selfevolve.guard import ToolGraphHarness
from agenttune.selfevolve.toolgraph import ToolGraph
from agenttune.tracking.run import RunContext

log = logging.getLogger(__name__)

Agent = Engine | EngineFor  # the policy's engine, or task -> a scripted engine
HarnessFactory = Callable[[], Any]  # a fresh harness (one per task: it holds the episode's state)
AGENT_KINDS = ("policy", "oracle", *PERTURBATIONS)


def domains_of(cfg: DictConfig) -> list[str]:
    domains = list(cfg.benchmark.domains) or ([cfg.benchmark.domain] if cfg.benchmark.domain else [])
    if not domains:
        raise ValueError("benchmark.domains is empty: choose benchmark=tau2_airline|tau2_retail|tau2_telecom")
    return domains


def make_harness(cfg: DictConfig, domain: str, max_steps: int | None = None) -> Tau2Harness:
    if cfg.harness.user != "scripted":
        raise NotImplementedError(
            f"harness.user={cfg.harness.user!r}: the tau2 pipelines use the scripted user"
        )
    return Tau2Harness(domain, max_steps=max_steps or cfg.harness.max_steps)


def tasks_of(domain: str, split: str, limit: int) -> list:
    tasks = load_tasks(domain, split)
    return tasks[:limit] if limit > 0 else tasks


def all_tool_kinds(harness: Tau2Harness) -> dict[str, str]:
    """Read/write kinds of the agent's tools and (telecom) the user's."""
    return {**harness.tool_kinds(), **harness.user_tool_kinds()}


def scripted_agent(kind: str, harness: Tau2Harness) -> EngineFor:
    """``oracle`` or a perturbed oracle kind, as task -> scripted engine."""
    if kind != "oracle" and kind not in PERTURBATIONS:
        raise ValueError(f"harness.agent={kind!r}: choose one of {AGENT_KINDS}")
    return scripted_engine_for(kind, all_tool_kinds(harness))


def toolgraph_config(cfg: DictConfig) -> ToolGraphConfig:
    switches = cfg.harness.toolgraph
    return ToolGraphConfig(
        planning_prompt=switches.planning_prompt,
        candidate_scoring=switches.candidate_scoring,
        pre_act_gate=switches.pre_act_gate,
        loop_check=switches.loop_check,
        domain_rules=switches.domain_rules,
        num_candidates=switches.num_candidates,
        loop_limit=switches.loop_limit,
    )


def domain_toolgraph(
    harness: Tau2Harness, config: ToolGraphConfig, success_logs: Sequence[EventLog] = ()
) -> ToolGraph:
    """The domain's ToolGraph with the benchmark's rules for it."""
    return build_toolgraph(harness, rules_for(harness.domain), config, success_logs)


def with_toolgraph(
    make_harness: HarnessFactory, agent: Agent, graph: ToolGraph, config: ToolGraphConfig
) -> tuple[HarnessFactory, Agent]:
    """ToolGraph-wrapped harnesses and agent: every mechanism ``config`` switches on (candidate scoring samples the
    policy's engine; a scripted agent has one answer to give)."""
    if config.candidate_scoring and isinstance(agent, Engine):
        agent = ToolGraphEngine(agent, graph, config)
    return lambda: ToolGraphHarness(make_harness(), graph, config), agent


def run_and_write(
    run: RunContext, make_harness: HarnessFactory, tasks: Sequence, agent: Agent, domain: str, name: str
) -> list[EventLog]:
    """Run ``tasks`` and write the episodes to ``eventlogs/<name>.jsonl``."""
    logs = run_tasks(agent, make_harness, tasks, domain, agent_name=name)
    with EventLogWriter(run.eventlog_dir / f"{name}.jsonl") as writer:
        for episode in logs:
            writer.write(episode)
    return logs


def domain_metrics(logs: Sequence[EventLog], prefix: str) -> dict[str, float]:
    return {f"{prefix}/{key}": value for key, value in summarize(logs).items()}


def run(cfg: DictConfig, run: RunContext) -> None:
    kind = cfg.harness.agent
    engine = None
    if kind == "policy":
        from agenttune.engines import build_engine

        model, tokenizer = load_policy(cfg)
        model.eval()
        engine = build_engine(typed(cfg.model, ModelConfig), model, tokenizer)
    all_logs: list[EventLog] = []
    metrics: dict[str, float] = {}
    for domain in domains_of(cfg):
        harness = make_harness(cfg, domain)
        tasks = tasks_of(domain, cfg.benchmark.split, cfg.benchmark.num_eval)
        agent: Agent = engine if engine is not None else scripted_agent(kind, harness)
        harnesses: HarnessFactory = lambda domain=domain: make_harness(cfg, domain)  # noqa: E731
        if cfg.harness.toolgraph.enabled:
            config = toolgraph_config(cfg)
            harnesses, agent = with_toolgraph(harnesses, agent, domain_toolgraph(harness, config), config)
        logs = run_and_write(run, harnesses, tasks, agent, domain, f"eval_{domain}")
        all_logs += logs
        metrics.update(domain_metrics(logs, f"eval/{domain}"))
        log.info(
            "%s %s: %d tasks, avg reward %.3f", domain, kind, len(logs), metrics[f"eval/{domain}/avg_reward"]
        )
    metrics["eval/avg_reward"] = summarize(all_logs)["avg_reward"]
    metrics["eval/episodes"] = float(len(all_logs))
    run.log(metrics)
    run.set_summary({**metrics, "eval/agent": kind})
