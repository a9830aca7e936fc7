"""What each node kind does when it runs (:mod:`agenttune.workflows.spec` describes the kinds).

Every executor takes the node, the run's :class:`WorkflowContext` and the case's current values, and returns a
:class:`NodeResult`: its outputs (read by later conditions as ``<node id>.<field>``), values it assigns, the
EventLogs the audit log records for it, and, for a decision or an approval, where to go next.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from statistics import mean
from typing import Any

from omegaconf import DictConfig

from agenttune.events.projections.evaluator import evaluator_input
from agenttune.events.schema import Event, EventLog, ObservationPayload, ToolCallPayload
from agenttune.events.trajectory import summarize, trajectory_metrics
from agenttune.workflows.audit import AuditLog
from agenttune.workflows.expressions import evaluate
from agenttune.workflows.spec import END, NodeConfig, WorkflowConfig
from agenttune.workflows.tools import registry

ACTOR = "workflow"  # the actor of the events a non-agent node records (an automated step of the workflow)


@dataclass
class NodeResult:
    outputs: dict[str, Any] = field(default_factory=dict)
    assigned: dict[str, Any] = field(default_factory=dict)
    logs: list[EventLog] = field(default_factory=list)
    goto: str | None = None  # decision, human_approval: the next node (None: the node's ``next``)
    status: str | None = None  # set to stop the case (pending_approval)


class WorkflowContext:
    """What the nodes of one run share: the config, the run folder, the audit log, the benchmark and the policy
    (both loaded on first use), the cases' inputs and the last trained policy."""

    def __init__(self, cfg: DictConfig, workflow: WorkflowConfig, run_dir: Path, run=None) -> None:
        self.cfg, self.workflow, self.run_dir, self.run = cfg, workflow, Path(run_dir), run
        self.audit = AuditLog(self.run_dir, workflow.name, workflow.audit)
        self.trained: Path | None = None
        self.episodes = 0

    @cached_property
    def benchmark(self):
        from agenttune.benchmarks.base import load_benchmark

        return load_benchmark(self.cfg)

    @cached_property
    def policy(self):
        from agenttune.stages.policy import load_policy

        return load_policy(self.cfg)

    @cached_property
    def policy_engine(self):
        from agenttune.stages.phases import policy_engine

        return policy_engine(self.cfg, *self.policy)

    def inputs(self) -> list[Any]:
        """One input per case: the benchmark's tasks of ``split``, or a built-in input set's records."""
        from agenttune.workflows.tools import input_set

        workflow = self.workflow
        if workflow.inputs == "benchmark":
            return list(self.benchmark.tasks(workflow.split, workflow.cases))
        records = input_set(workflow.inputs)
        if workflow.cases > len(records):
            raise ValueError(f"workflow.cases={workflow.cases}; the {workflow.inputs} set has {len(records)}")
        return records[: workflow.cases]

    def player(self, kind: str):
        """The policy's engine, or task -> the benchmark's scripted agent ``kind``."""
        if kind == "policy":
            return self.policy_engine
        return lambda task: self.benchmark.teacher(task, None, kind)

    def play(self, node: NodeConfig, tasks: list[Any]) -> tuple[list[EventLog], list[dict[str, float]]]:
        """:func:`~agenttune.stages.phases.scored_episodes` of ``tasks`` by the node's player."""
        from agenttune.stages.phases import scored_episodes

        logs, scores = scored_episodes(
            self.cfg, self.benchmark, self.player(node.player), tasks, node.max_turns
        )
        self.episodes += len(logs)
        return logs, scores


def agent(node: NodeConfig, context: WorkflowContext, values: Mapping[str, Any]) -> NodeResult:
    (log,), (scores,) = context.play(node, [values["input"]])
    metrics = trajectory_metrics(log)
    outputs = {
        **{identifier(name): value for name, value in scores.items()},
        "reward": log.rewards().get("total", 0.0),
        "answer": evaluator_input(log)["final_answer"] or "",
        "tool_calls": metrics.tool_calls,
        "tool_argument_accuracy": metrics.tool_argument_accuracy,
        "redundant_calls": metrics.redundant_calls,
        "loops": metrics.loops,
        "errors": metrics.errors,
    }
    return NodeResult(outputs=outputs, logs=[log])


def evaluate_node(node: NodeConfig, context: WorkflowContext, values: Mapping[str, Any]) -> NodeResult:
    tasks = context.benchmark.tasks(node.split, node.tasks)
    logs, scores = context.play(node, list(tasks))
    trajectory = summarize(logs)
    outputs = {"reward": mean(log.rewards().get("total", 0.0) for log in logs)}
    outputs |= {
        name: trajectory[name] for name in ("tool_argument_accuracy", "redundant_call_rate", "loop_rate")
    }
    outputs |= {identifier(name): mean(score[name] for score in scores) for name in scores[0]}
    return NodeResult(outputs=outputs, logs=logs)


def tool(node: NodeConfig, context: WorkflowContext, values: Mapping[str, Any]) -> NodeResult:
    toolset, _, name = node.tool.partition(".")
    arguments = {key: evaluate(text, values) for key, text in node.arguments.items()}
    call = Event(
        payload=ToolCallPayload(call_id=f"{node.id}-{values['steps']}", name=name, arguments=arguments)
    )
    call = _as(call, ACTOR)
    result = registry(toolset).execute(call)
    content = result.payload.content
    try:
        parsed = json.loads(content)
    except json.JSONDecodeError:
        parsed = content
    outputs = {
        "result": parsed,
        "ok": not result.payload.is_error,
        "error": content if result.payload.is_error else "",
    }
    return NodeResult(outputs=outputs, logs=[_log(context, values, [call, _as(result, "tool")])])


def rule(node: NodeConfig, context: WorkflowContext, values: Mapping[str, Any]) -> NodeResult:
    assigned: dict[str, Any] = {}
    for name, text in node.assign.items():
        assigned[name] = evaluate(text, {**values, **assigned})
    return NodeResult(assigned=assigned, logs=[_note(context, values, "rule", assigned)])


def decision(node: NodeConfig, context: WorkflowContext, values: Mapping[str, Any]) -> NodeResult:
    goto = next((route.goto for route in node.routes if evaluate(route.when, values)), node.default)
    return NodeResult(
        outputs={"goto": goto}, goto=goto, logs=[_note(context, values, "decision", {"goto": goto})]
    )


def human_approval(node: NodeConfig, context: WorkflowContext, values: Mapping[str, Any]) -> NodeResult:
    """A scripted decision, or a pending request a person answers (``approvals/pending/<case>-<node>.json``)."""
    if node.decision == "pending":
        pending = context.run_dir / "approvals" / "pending" / f"case-{values['case']}-{node.id}.json"
        pending.parent.mkdir(parents=True, exist_ok=True)
        request = {
            "workflow": context.workflow.name,
            "case": values["case"],
            "node": node.id,
            "values": _plain(values),
        }
        pending.write_text(json.dumps(context.audit.redactor.value(request), indent=2, default=str))
        outputs = {"approved": False, "pending": True}
        note = _note(
            context, values, "human_approval", {"pending": str(pending.relative_to(context.run_dir))}
        )
        return NodeResult(outputs=outputs, logs=[note], goto=END, status="pending_approval")
    approved = node.decision == "approve"
    note = _note(context, values, "human_approval", {"decision": node.decision})
    return NodeResult(
        outputs={"approved": approved, "pending": False},
        logs=[note],
        goto=node.next if approved else node.on_reject,
    )


def train(node: NodeConfig, context: WorkflowContext, values: Mapping[str, Any]) -> NodeResult:
    """Train on the rows projected from the audit log so far, when the node's threshold holds."""
    if not evaluate(node.when, values):
        outputs = {"trained": False, "rows": 0, "global_step": 0}
        return NodeResult(outputs=outputs, logs=[_note(context, values, "train", {"skipped": node.when})])
    from agenttune.stages.policy import train_policy
    from agenttune.training import algorithm_config
    from agenttune.workflows.datasets import audit_training_data

    algorithm = algorithm_config(context.cfg.algorithm)
    model, tokenizer = context.policy
    data = audit_training_data(context.audit.path, algorithm, tokenizer)
    rows = len(next(iter(d for d in (data.sft, data.preferences, data.unpaired) if d is not None)))
    context.trained = train_policy(
        context.cfg, context.run, model, tokenizer, data, prefix=node.id, stage=algorithm
    )
    context.__dict__.pop("policy_engine", None)  # the next episodes run on the trained weights
    outputs = {"trained": True, "rows": rows, "global_step": algorithm.max_steps}
    return NodeResult(outputs=outputs, logs=[_note(context, values, "train", outputs)])


def deploy(node: NodeConfig, context: WorkflowContext, values: Mapping[str, Any]) -> NodeResult:
    """Copy the last trained policy to ``deployed/`` (the previous one kept in ``deployed.backup/``)."""
    deployed = bool(evaluate(node.when, values)) and context.trained is not None
    if deployed:
        target, backup = context.run_dir / "deployed", context.run_dir / "deployed.backup"
        if target.exists():
            shutil.rmtree(backup, ignore_errors=True)
            target.rename(backup)
        shutil.copytree(context.trained, target)
    return NodeResult(
        outputs={"deployed": deployed}, logs=[_note(context, values, "deploy", {"deployed": deployed})]
    )


EXECUTORS: dict[str, Callable[[NodeConfig, WorkflowContext, Mapping[str, Any]], NodeResult]] = {
    "agent": agent,
    "tool": tool,
    "rule": rule,
    "decision": decision,
    "human_approval": human_approval,
    "train": train,
    "evaluate": evaluate_node,
    "deploy": deploy,
}


def identifier(name: str) -> str:
    """A score's name as conditions read it: ``hit@8`` -> ``hit_8``, ``retail/avg_reward`` -> ``retail_avg_reward``."""
    return re.sub(r"\W+", "_", name).strip("_")


def _as(event: Event, actor: str) -> Event:
    from agenttune.events.schema import replace

    return replace(event, actor=actor)


def _log(context: WorkflowContext, values: Mapping[str, Any], events: list[Event]) -> EventLog:
    return EventLog(
        id="node", source=context.workflow.name, task_id=str(values.get("task_id", "")), events=events
    )


def _note(
    context: WorkflowContext, values: Mapping[str, Any], source: str, what: Mapping[str, Any]
) -> EventLog:
    """A one-event log: what a node without a conversation did, as an OBSERVATION."""
    content = json.dumps(dict(what), default=str, sort_keys=True)
    event = Event(payload=ObservationPayload(content=content, source=source), actor=ACTOR)
    return _log(context, values, [event])


def _plain(values: Mapping[str, Any]) -> dict[str, Any]:
    return {
        k: v for k, v in values.items() if isinstance(v, str | int | float | bool | dict | list | type(None))
    }
