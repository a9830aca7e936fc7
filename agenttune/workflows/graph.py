"""A checked workflow compiled into a ``langgraph`` StateGraph, run once per case.

The graph's state is the case's ``values`` (what conditions read), the number of node executions ``steps`` and a
``status`` (``running``, then ``done``, ``step_limit`` or ``pending_approval``). Each workflow node is a graph
node that runs its executor (:mod:`agenttune.workflows.nodes`), appends the execution to the audit log and
updates the values; each node's outgoing edge is a conditional edge that goes to the executor's choice (a
decision's route, an approval's outcome) or the node's ``next``, and to ``END`` once the case has stopped. The
step limit is enforced by the graph itself: a node reached after ``max_steps`` executions does not run and the
case stops with ``step_limit`` (langgraph's recursion limit is set above it, as a backstop).
"""

from __future__ import annotations

import logging
from typing import Any, TypedDict

from langgraph.graph import END as GRAPH_END
from langgraph.graph import START, StateGraph

from agenttune.agents.episode import task_id
from agenttune.workflows.nodes import EXECUTORS, WorkflowContext
from agenttune.workflows.spec import END, NodeConfig

log = logging.getLogger(__name__)


class CaseState(TypedDict):
    values: dict[str, Any]
    steps: int
    status: str
    next: str
    path: list[str]


def compile_workflow(context: WorkflowContext):
    """The workflow of ``context`` as a compiled langgraph graph (``invoke`` it with :func:`initial_state`)."""
    workflow = context.workflow
    graph = StateGraph(CaseState)
    for node in workflow.nodes:
        graph.add_node(node.id, _runner(node, context))
        graph.add_conditional_edges(node.id, _route, [*(n.id for n in workflow.nodes), GRAPH_END])
    graph.add_edge(START, workflow.start)
    return graph.compile()


def initial_state(context: WorkflowContext, case: int, task: Any) -> CaseState:
    values = {
        **context.workflow.values,
        "case": case,
        "cases": context.workflow.cases,
        "steps": 0,
        "episodes": context.episodes,
        "input": task,
        "task_id": task_id(task, case),
    }
    return CaseState(values=values, steps=0, status="running", next="", path=[])


def run_cases(context: WorkflowContext) -> list[CaseState]:
    """Every case through the compiled graph, in order; the final state of each."""
    graph = compile_workflow(context)
    limit = context.workflow.max_steps + len(context.workflow.nodes) + 2
    finals = []
    for case, task in enumerate(context.inputs()):
        final = graph.invoke(initial_state(context, case, task), {"recursion_limit": limit})
        if final["status"] == "running":
            final["status"] = "done"
        log.info("case %d: %s after %s", case, final["status"], " -> ".join(final["path"]))
        finals.append(final)
    return finals


def _route(state: CaseState) -> str:
    return GRAPH_END if state["status"] != "running" or state["next"] == END else state["next"]


def _runner(node: NodeConfig, context: WorkflowContext):
    execute = EXECUTORS[node.kind]
    agent = node.agent or node.id

    def run(state: CaseState) -> dict[str, Any]:
        if state["steps"] >= context.workflow.max_steps:
            return {"status": "step_limit"}
        values = {**state["values"], "steps": state["steps"], "episodes": context.episodes}
        result = execute(node, context, values)
        context.audit.append(
            result.logs,
            case=values["case"],
            step=state["steps"],
            node=node.id,
            kind=node.kind,
            agent=agent,
            outputs={**result.outputs, **result.assigned},
        )
        values = {**values, **result.assigned, node.id: result.outputs, "episodes": context.episodes}
        return {
            "values": values,
            "steps": state["steps"] + 1,
            "status": result.status or "running",
            "next": result.goto or node.next,
            "path": [*state["path"], node.id],
        }

    return run
