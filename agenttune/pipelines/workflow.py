"""``pipeline=workflow``: run the ``workflow`` group's graph once per case (:mod:`agenttune.workflows`).

The audit log is ``<run>/audit.jsonl``; the summary holds ``workflow/cases``, ``workflow/status/<status>`` (cases
that ended ``done``, ``step_limit`` or ``pending_approval``), ``workflow/node/<id>`` (executions per node) and
``workflow/episodes``.

    python train.py pipeline=workflow workflow=kyc_review
    python train.py pipeline=workflow workflow=cuad_clause_review
"""

from __future__ import annotations

from collections import Counter

from omegaconf import DictConfig

from agenttune.tracking.run import RunContext
from agenttune.workflows.graph import run_cases
from agenttune.workflows.nodes import WorkflowContext
from agenttune.workflows.spec import WorkflowConfig, load_workflow


def run(cfg: DictConfig, run: RunContext) -> None:
    if cfg.get("workflow") is None:
        raise ValueError("pipeline=workflow needs workflow=<name> (a file of conf/workflow/)")
    workflow: WorkflowConfig = load_workflow(cfg.workflow)
    context = WorkflowContext(cfg, workflow, run.dir, run)
    try:
        finals = run_cases(context)
    finally:
        context.audit.close()
    statuses = Counter(final["status"] for final in finals)
    nodes = Counter(node for final in finals for node in final["path"])
    summary = {
        "workflow/name": workflow.name,
        "workflow/cases": len(finals),
        "workflow/episodes": context.episodes,
        **{f"workflow/status/{status}": count for status, count in statuses.items()},
        **{f"workflow/node/{node}": count for node, count in nodes.items()},
    }
    run.log({k: v for k, v in summary.items() if isinstance(v, int)})
    run.set_summary(summary)
