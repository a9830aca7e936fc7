"""The typed form of a workflow YAML (the ``workflow`` config group) and the checks it passes before it runs.

A workflow is a graph of nodes run once per case (``cases`` of them: the benchmark's tasks of ``split``, or the
records of a built-in input set such as ``kyc``). Every node has an ``id``, a ``kind`` and where to go next
(``next``; ``end`` stops the case). Kinds and the fields they read:

=================  =============================================================================================
``agent``          plays the case's task with ``player`` (``policy``: the ``model`` group's engine; any other
                   value: the benchmark's scripted agent of that kind, e.g. ``oracle``); outputs the benchmark's
                   per-episode scores, ``reward`` (the ``reward`` group's total), ``answer`` and the trajectory
                   metrics (``tool_calls``, ``tool_argument_accuracy``, ``redundant_calls``, ``loops``, ``errors``)
``tool``           calls ``tool`` (``<toolset>.<function>``, :mod:`agenttune.workflows.tools`) with ``arguments``
                   (name -> expression); outputs ``result`` (parsed JSON when it is JSON), ``ok``, ``error``
``rule``           ``assign``: value name -> expression, computed in order (later ones see earlier ones)
``decision``       ``routes`` (``when`` -> ``goto``, first true wins), else ``default``
``human_approval`` ``decision``: ``pending`` (default: writes ``approvals/pending/<case>-<id>.json`` in the run
                   folder and stops the case for a person) or ``approve`` / ``reject`` (scripted); goes to
                   ``next`` when approved, ``on_reject`` when rejected; outputs ``approved``, ``pending``
``train``          trains the policy with the ``algorithm`` group on rows projected from the audit log so far,
                   only when its ``when`` threshold holds; outputs ``trained``, ``rows``, ``global_step``
``evaluate``       plays ``tasks`` tasks of ``split`` with ``player``; outputs the mean of each benchmark score
``deploy``         copies the last trained policy to ``deployed/`` (the previous one to ``deployed.backup/``) only
                   when its ``when`` threshold holds; outputs ``deployed``
=================  =============================================================================================

Conditions and assignments are expressions (:mod:`agenttune.workflows.expressions`) over: ``case``, ``cases``,
``steps``, ``episodes`` (agent episodes in the audit log so far), ``input`` (the case's record), the
workflow's ``values`` (initial values), every ``assign`` target, and each node's outputs as ``<node id>.<field>``.
:func:`check_workflow` rejects an unknown kind, a field a kind does not read, an edge to an unknown node, a node no
path from ``start`` reaches and a bad condition, naming the file, the node and the field.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from hydra.core.hydra_config import HydraConfig
from omegaconf import MISSING, OmegaConf

from agenttune.workflows.expressions import ExpressionError, check_expression
from agenttune.workflows.tools import INPUT_SETS, TOOLSETS, tool_names

END = "end"


@dataclass
class RouteConfig:
    when: str = MISSING  # a condition
    goto: str = MISSING  # a node id or "end"


@dataclass
class NodeConfig:
    id: str = MISSING  # the node's name in edges, conditions (<id>.<field>) and the audit log
    kind: str = MISSING  # agent | tool | rule | decision | human_approval | train | evaluate | deploy
    agent: str = ""  # who acts, named on every event of the node (default: the node id)
    description: str = ""  # what the node is for (shown in the audit log)
    next: str = END  # the node that follows (end: the case stops)
    routes: list[RouteConfig] = field(default_factory=list)  # decision
    default: str = ""  # decision: where to go when no route holds
    on_reject: str = END  # human_approval
    decision: str = "pending"  # human_approval: pending | approve | reject
    player: str = "policy"  # agent, evaluate: policy | a scripted agent of the benchmark (oracle, ...)
    max_turns: int = 0  # agent, evaluate: the strategy's turn budget (0: the strategy group's)
    split: str = "eval"  # evaluate
    tasks: int = 1  # evaluate: tasks played
    tool: str = ""  # tool: <toolset>.<function>
    arguments: dict[str, str] = field(default_factory=dict)  # tool: argument -> expression
    assign: dict[str, str] = field(default_factory=dict)  # rule: value name -> expression
    when: str = ""  # train, deploy: the threshold that must hold


@dataclass
class AuditConfig:
    redact: bool = True  # personal data replaced in the audit log (see agenttune.workflows.audit)
    # argument and record fields whose values are always replaced, whatever they look like
    fields: list[str] = field(
        default_factory=lambda: ["name", "full_name", "date_of_birth", "address", "document_number"]
    )
    patterns: dict[str, str] = field(
        default_factory=dict
    )  # placeholder -> regex, beside e-mail/account/phone


@dataclass
class WorkflowConfig:
    name: str = MISSING  # the workflow's name in the run folder and the audit log
    description: str = ""  # what the workflow decides
    start: str = MISSING  # the first node
    max_steps: int = 20  # node executions per case; the case stops with status step_limit beyond
    cases: int = 1  # cases run through the graph
    inputs: str = "benchmark"  # benchmark (its tasks of `split`) | a built-in input set (kyc)
    split: str = "eval"  # inputs=benchmark: the split the cases come from
    values: dict[str, Any] = field(default_factory=dict)  # initial values conditions can read
    nodes: list[NodeConfig] = field(default_factory=list)  # the graph's nodes
    audit: AuditConfig = field(default_factory=AuditConfig)  # what the audit log redacts


KINDS = ("agent", "tool", "rule", "decision", "human_approval", "train", "evaluate", "deploy")
# The fields each kind reads beside id, kind, agent, description and next (a value elsewhere is an error).
KIND_FIELDS = {
    "agent": {"player", "max_turns"},
    "tool": {"tool", "arguments"},
    "rule": {"assign"},
    "decision": {"routes", "default"},
    "human_approval": {"decision", "on_reject"},
    "train": {"when"},
    "evaluate": {"player", "max_turns", "split", "tasks"},
    "deploy": {"when"},
}
# What each kind's outputs offer to conditions (None: any field, known only when it runs).
OUTPUTS: dict[str, frozenset[str] | None] = {
    "agent": None,
    "tool": frozenset({"result", "ok", "error"}),
    "rule": frozenset(),
    "decision": frozenset({"goto"}),
    "human_approval": frozenset({"approved", "pending"}),
    "train": frozenset({"trained", "rows", "global_step"}),
    "evaluate": None,
    "deploy": frozenset({"deployed"}),
}
GLOBALS: dict[str, frozenset[str] | None] = {
    "case": frozenset(),
    "cases": frozenset(),
    "steps": frozenset(),
    "episodes": frozenset(),
    "input": None,
}
DECISIONS = ("pending", "approve", "reject")
_DEFAULTS = NodeConfig(id="", kind="")


class WorkflowError(ValueError):
    """A workflow that cannot run; the message names the file, the node and the field."""


def check_workflow(workflow: WorkflowConfig, source: str) -> None:
    """Raise :class:`WorkflowError` on the first problem, as ``<source>: node '<id>' field '<field>': ...``."""

    def fail(node: str, name: str, message: str) -> None:
        raise WorkflowError(f"{source}: node {node!r} field {name!r}: {message}")

    ids = [node.id for node in workflow.nodes]
    if not ids:
        raise WorkflowError(f"{source}: field 'nodes': a workflow needs at least one node")
    for node in workflow.nodes:
        if ids.count(node.id) > 1:
            fail(node.id, "id", "two nodes have this id")
        if node.id == END:
            fail(node.id, "id", f"{END!r} is where a case stops, not a node id")
    if workflow.inputs != "benchmark" and workflow.inputs not in INPUT_SETS:
        raise WorkflowError(
            f"{source}: field 'inputs': {workflow.inputs!r}; use benchmark or one of {sorted(INPUT_SETS)}"
        )
    if workflow.start not in ids:
        raise WorkflowError(f"{source}: field 'start': {workflow.start!r} is not a node; nodes: {ids}")
    names = dict(GLOBALS) | {name: frozenset() for name in workflow.values}
    for node in workflow.nodes:
        if node.kind not in KINDS:
            fail(node.id, "kind", f"unknown kind {node.kind!r}; choose one of {list(KINDS)}")
        names[node.id] = OUTPUTS[node.kind]
        names |= {target: frozenset() for target in node.assign}
    for node in workflow.nodes:
        for target in node.assign:
            if target in ids or target in GLOBALS:
                fail(node.id, f"assign.{target}", f"{target!r} is already a node id or a built-in name")
        _check_fields(node, fail)
        for name, target in _edges(node):
            if target != END and target not in ids:
                fail(node.id, name, f"goes to {target!r}, which is not a node; nodes: {ids} or {END!r}")
        for name, text in _expressions(node):
            try:
                check_expression(text, names)
            except ExpressionError as error:
                fail(node.id, name, str(error))
    reached = _reachable(workflow)
    for node in workflow.nodes:
        if node.id not in reached:
            fail(node.id, "id", f"no path from start {workflow.start!r} reaches this node")


def _check_fields(node: NodeConfig, fail) -> None:
    allowed = KIND_FIELDS[node.kind] | {"id", "kind", "agent", "description", "next"}
    for name in NodeConfig.__dataclass_fields__:
        if name not in allowed and getattr(node, name) != getattr(_DEFAULTS, name):
            fail(node.id, name, f"a {node.kind} node does not read {name!r}; it reads {sorted(allowed)}")
    if node.kind == "decision" and not node.default:
        fail(node.id, "default", "a decision needs a default (where to go when no route holds)")
    if node.kind == "decision" and node.next != END:
        fail(node.id, "next", "a decision goes by its routes and default, not next")
    if node.kind == "tool":
        toolset, _, function = node.tool.partition(".")
        if toolset not in TOOLSETS or function not in tool_names(toolset):
            known = [f"{t}.{f}" for t in TOOLSETS for f in tool_names(t)]
            fail(node.id, "tool", f"unknown tool {node.tool!r}; choose one of {known}")
    if node.kind == "human_approval" and node.decision not in DECISIONS:
        fail(node.id, "decision", f"{node.decision!r}; choose one of {list(DECISIONS)}")
    if node.kind in ("train", "deploy") and not node.when:
        fail(node.id, "when", f"a {node.kind} node needs a threshold (a condition that must hold)")
    if node.kind == "evaluate" and node.tasks < 1:
        fail(node.id, "tasks", "evaluate at least one task")


def _edges(node: NodeConfig) -> list[tuple[str, str]]:
    if node.kind == "decision":
        return [(f"routes[{i}].goto", route.goto) for i, route in enumerate(node.routes)] + [
            ("default", node.default)
        ]
    edges = [("next", node.next)]
    return edges + [("on_reject", node.on_reject)] if node.kind == "human_approval" else edges


def _expressions(node: NodeConfig) -> list[tuple[str, str]]:
    found = [(f"routes[{i}].when", route.when) for i, route in enumerate(node.routes)]
    found += [(f"arguments.{name}", text) for name, text in node.arguments.items()]
    found += [(f"assign.{name}", text) for name, text in node.assign.items()]
    return found + ([("when", node.when)] if node.when else [])


def _reachable(workflow: WorkflowConfig) -> set[str]:
    by_id = {node.id: node for node in workflow.nodes}
    seen, queue = {workflow.start}, deque([workflow.start])
    while queue:
        for _, target in _edges(by_id[queue.popleft()]):
            if target != END and target not in seen:
                seen.add(target)
                queue.append(target)
    return seen


def load_workflow(node) -> WorkflowConfig:
    """The composed ``workflow`` node as a :class:`WorkflowConfig`."""
    return OmegaConf.to_object(OmegaConf.merge(OmegaConf.structured(WorkflowConfig), node))


def workflow_source(cfg) -> str:
    """The file the composed workflow came from (``conf/workflow/<choice>.yaml``), as errors name it."""
    choice = None
    if "hydra" in cfg:
        choice = cfg.hydra.runtime.choices.get("workflow")
    elif HydraConfig.initialized():
        choice = HydraConfig.get().runtime.choices.get("workflow")
    return f"conf/workflow/{choice}.yaml" if choice else f"workflow {cfg.workflow.get('name')!r}"


def check_composed(cfg) -> None:
    """:func:`check_workflow` on a composed job config that selects a workflow (nothing otherwise)."""
    if cfg.get("workflow") is not None:
        check_workflow(load_workflow(cfg.workflow), workflow_source(cfg))
