"""Workflows run as langgraph graphs: routes, step limit, approvals, a redacted and attributed audit log, and
SFT/DPO/RL rows projected from the audit log alone."""

from __future__ import annotations

import json

import pytest

from agenttune.events import load_jsonl
from agenttune.workflows.datasets import audit_rows
from agenttune.workflows.graph import run_cases
from agenttune.workflows.nodes import WorkflowContext
from agenttune.workflows.spec import NodeConfig, RouteConfig, WorkflowConfig, check_workflow, load_workflow
from tests.conftest import compose_config
from tests.workflows.toy_benchmark import TOY

PERSONAL = ("Alice", "Martin", "alice.martin@example.com", "FR76", "+33 6 12", "1988-04-12", "FR1234567")


def run(cfg, workflow, tmp_path):
    check_workflow(workflow, "test")
    context = WorkflowContext(cfg, workflow, tmp_path)
    try:
        return context, run_cases(context)
    finally:
        context.audit.close()


def test_kyc_review_routes_by_risk_and_redacts_the_audit_log(tmp_path):
    cfg = compose_config(["pipeline=workflow", "workflow=kyc_review"])
    context, finals = run(cfg, load_workflow(cfg.workflow), tmp_path)
    # Alice: no risk; Mara: on the watchlist (60); Tomas: a minor (40) with an expired document (25) depositing more
    # than half his income (10); Lena: a malformed document number (25) and a large deposit (10)
    assert [f["values"]["risk"] for f in finals] == [0, 60, 75, 35]
    assert [f["status"] for f in finals] == ["done", "pending_approval", "pending_approval", "done"]
    assert finals[0]["path"][-2:] == ["route", "approved"] and finals[0]["values"]["outcome"] == "approved"
    assert finals[3]["path"][-2:] == ["officer", "approved"]  # the compliance officer's review
    pending = sorted(p.name for p in (tmp_path / "approvals" / "pending").iterdir())
    assert pending == ["case-1-escalate.json", "case-2-escalate.json"]
    text = (tmp_path / "audit.jsonl").read_text() + (
        tmp_path / "approvals" / "pending" / pending[0]
    ).read_text()
    assert not [value for value in PERSONAL if value in text]
    logs = load_jsonl(tmp_path / "audit.jsonl")
    assert len(logs) == sum(len(f["path"]) for f in finals)  # one line per node execution
    assert all(
        e.metadata["node"] == log.metadata["node"] and e.metadata["agent"] for log in logs for e in log.events
    )
    assert {log.metadata["agent"] for log in logs} >= {"kyc_checker", "head_of_compliance"}


def test_redaction_can_be_turned_off_and_extended(tmp_path):
    cfg = compose_config(["pipeline=workflow", "workflow=kyc_review"])
    workflow = load_workflow(cfg.workflow)
    workflow.cases, workflow.audit.redact = 1, False
    run(cfg, workflow, tmp_path / "open")
    assert "Alice Martin" in (tmp_path / "open" / "audit.jsonl").read_text()
    workflow.audit.redact, workflow.audit.patterns = True, {"[COUNTRY]": r"\bFR\b"}
    run(cfg, workflow, tmp_path / "custom")
    text = (tmp_path / "custom" / "audit.jsonl").read_text()
    assert '"country":"[COUNTRY]"' in text and "Alice" not in text


def test_the_step_limit_stops_a_loop(tmp_path):
    cfg = compose_config(["pipeline=workflow", "workflow=kyc_review"])
    loop = WorkflowConfig(
        name="loop",
        start="count",
        max_steps=7,
        inputs="kyc",
        values={"n": 0},
        nodes=[
            NodeConfig(id="count", kind="rule", assign={"n": "n + 2"}, next="again"),
            NodeConfig(
                id="again", kind="decision", routes=[RouteConfig(when="n < 100", goto="count")], default="end"
            ),
        ],
    )
    _, (final,) = run(cfg, loop, tmp_path)
    assert final["status"] == "step_limit" and final["steps"] == 7 and final["values"]["n"] == 8


def test_the_audit_log_is_append_only_and_survives_a_torn_line(tmp_path):
    cfg = compose_config(["pipeline=workflow", "workflow=kyc_review"])
    workflow = load_workflow(cfg.workflow)
    workflow.cases = 1
    run(cfg, workflow, tmp_path)
    first = (tmp_path / "audit.jsonl").read_bytes()
    with open(tmp_path / "audit.jsonl", "ab") as handle:
        handle.write(b'{"schema_version":"1.1","id":"torn')  # a crash in the middle of a write
    with pytest.warns(UserWarning, match="torn"):
        run(cfg, workflow, tmp_path)
    after = (tmp_path / "audit.jsonl").read_bytes()
    assert after.startswith(first) and len(load_jsonl(tmp_path / "audit.jsonl")) == 2 * first.count(b"\n")


def test_sft_dpo_and_rl_rows_come_from_the_audit_log_alone(tmp_path, tokenizer):
    cfg = compose_config(["pipeline=workflow", "workflow=kyc_review", *TOY, "benchmark.num_eval=2"])
    workflow = WorkflowConfig(
        name="answer_twice",
        start="student",
        cases=2,
        nodes=[
            NodeConfig(id="student", kind="agent", agent="student", player="policy", next="teacher"),
            NodeConfig(id="teacher", kind="agent", agent="teacher", player="oracle", next="end"),
        ],
    )
    context, finals = run(cfg, workflow, tmp_path)
    assert [f["values"]["teacher"]["reward"] > f["values"]["student"]["reward"] for f in finals] == [
        True,
        True,
    ]
    del context, finals  # nothing from the run is used below: only the file
    rows = audit_rows(tmp_path / "audit.jsonl", tokenizer)
    assert len(rows["sft"]) == 2  # the teacher's episodes (reward >= 0.5)
    assert [(row["task_id"], row["chosen_id"].split("/")[-2]) for row in rows["dpo"]] == [
        ("t2", "teacher"),
        ("t3", "teacher"),
    ]
    assert len(rows["rl"]) == 2 and all(
        sum(row["tool_mask"]) > 0 for row in rows["rl"]
    )  # the policy's, full tier
    episodes = [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()]
    assert {e["metadata"]["agent"] for e in episodes} == {"student", "teacher"}
