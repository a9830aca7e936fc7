"""pipeline=self_heal on the toy_sums benchmark (tiny model, scripted oracle): triggers, corrections, the gate
(poisoned, overlapping and small held-out sets refused; approval; deployment with backup; rollback)."""

from __future__ import annotations

import json

import pytest

from agenttune.agents.toy import tasks
from agenttune.benchmarks.base import register
from agenttune.selfheal.config import GateConfig
from agenttune.selfheal.deployment import Deployment
from agenttune.selfheal.gate import decide
from tests.workflows.toy_benchmark import TOY, ToySums


@register("toy_sums_poisoned")
class PoisonedSums(ToySums):
    """Its held-out answers are wrong: the oracle, which computes them, contradicts their gold."""

    def tasks(self, split, limit=None):
        found = super().tasks(split, limit)
        return [{**t, "answer": "-1"} for t in found] if split == "eval" else found


@register("toy_sums_overlap")
class OverlappingSums(ToySums):
    """Its held-out tasks are its train tasks."""

    def tasks(self, split, limit=None):
        return tasks(self.limit(split, limit))


HEAL = [
    "pipeline=self_heal",
    *TOY,
    "benchmark.num_train=2",
    "benchmark.num_eval=2",
    "self_heal.heldout=2",
    "self_heal.gate.min_heldout=2",
    "algorithm=sft",
    "algorithm.max_steps=1",
]


def heal(*changes: str) -> list[str]:
    """HEAL with each ``key=value`` of ``changes`` replacing the option of that key (or added)."""
    keys = {change.split("=")[0] for change in changes}
    return [option for option in HEAL if option.split("=")[0] not in keys] + list(changes)


@pytest.mark.parametrize(
    ("overrides", "reason"),
    [
        (["benchmark.name=toy_sums_poisoned"], "the oracle fails held-out tasks"),
        (["benchmark.name=toy_sums_overlap"], "are in the retraining data"),
        (["self_heal.gate.min_heldout=8"], "held-out set has 2 cases; the gate needs 8"),
        # dropping the contradicted cases instead leaves too few
        (
            ["benchmark.name=toy_sums_poisoned", "self_heal.gate.contradicted=drop"],
            "held-out set has 0 cases",
        ),
    ],
)
def test_the_gate_refuses_an_untrustworthy_heldout_set(run_pipeline, overrides, reason):
    run_dir, summary = run_pipeline(heal(*overrides))
    assert summary["status"] == "completed", summary.get("error")
    metrics = summary["metrics"]
    assert metrics["self_heal/outcome"] == "refused" and reason in metrics["gate/reasons"]
    assert metrics["self_heal/failures"] == 2 and "self_heal/corrections" not in metrics  # nothing retrained
    assert not (run_dir / "deployment").exists()


def test_too_few_failures_do_not_trigger_retraining(run_pipeline):
    _, summary = run_pipeline(heal("self_heal.min_failures=3"))
    assert summary["metrics"]["self_heal/outcome"].startswith("not triggered: 2 failed tasks")


def test_a_round_heals_from_oracle_corrections_and_reports_the_gate(run_pipeline):
    # min_success_gain=-1: any candidate passes, so the round reaches the approval step
    run_dir, summary = run_pipeline(
        [*HEAL, "self_heal.gate.min_success_gain=-1", "self_heal.gate.require_approval=true"]
    )
    metrics = summary["metrics"]
    assert metrics["self_heal/reason/low_reward"] == 2 and metrics["self_heal/corrections"] == 2
    assert {"gate/current/success", "gate/candidate/success", "gate/candidate/loop_rate"} <= set(metrics)
    assert metrics["self_heal/outcome"] == "pending approval" and not (run_dir / "deployment").exists()
    pending = json.loads((run_dir / "approvals" / "pending-1.json").read_text())
    assert pending["candidate"].endswith("final") and "gate/candidate/success" in pending
    corrections = (run_dir / "eventlogs" / "heal-1" / "corrections.jsonl").read_text().splitlines()
    assert len(corrections) == 2


def test_a_preference_algorithm_trains_on_divergence_point_pairs(run_pipeline):
    overrides = [
        "algorithm=dpo",
        "self_heal.gate.min_success_gain=-1",
        "self_heal.gate.require_approval=true",
    ]
    _, summary = run_pipeline(heal(*overrides))
    assert summary["status"] == "completed", summary.get("error")
    assert (
        summary["metrics"]["self_heal/divergence_pairs"] == 2
    )  # one per failed task, cut where it left the oracle


def test_gate_needs_a_better_candidate_without_more_loops():
    gate = GateConfig()
    current = {"success": 0.25, "loop_rate": 0.1, "tool_argument_accuracy": 0.9}
    assert decide(
        current, {"success": 0.5, "loop_rate": 0.1, "tool_argument_accuracy": 0.95}, gate, []
    ).deploy
    same = decide(current, {"success": 0.25, "loop_rate": 0.0, "tool_argument_accuracy": 1.0}, gate, [])
    assert not same.deploy and "does not beat" in same.reasons[0]
    loops = decide(current, {"success": 0.75, "loop_rate": 0.5, "tool_argument_accuracy": 0.9}, gate, [])
    assert loops.reasons == ["loop rate rises by 0.400"]
    sloppy = decide(current, {"success": 0.75, "loop_rate": 0.1, "tool_argument_accuracy": 0.5}, gate, [])
    assert sloppy.reasons == ["tool-argument accuracy drops by 0.400"]
    assert decide(current, {**current, "success": 1.0}, gate, []).numbers["gate/candidate/success"] == 1.0


def test_deployment_keeps_a_backup_and_rolls_back_on_regression(tmp_path):
    for name in ("v1", "v2"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "weights").write_text(name)
    deployment = Deployment(tmp_path / "deployment")
    deployment.deploy(tmp_path / "v1", {})
    deployment.deploy(tmp_path / "v2", {})
    assert (deployment.current / "weights").read_text() == "v2" and (
        deployment.backup / "weights"
    ).read_text() == "v1"
    assert not deployment.check_after_deployment(expected_success=0.8, observed_success=0.75, tolerance=0.1)
    assert deployment.check_after_deployment(expected_success=0.8, observed_success=0.5, tolerance=0.1)
    assert (deployment.current / "weights").read_text() == "v1" and not deployment.backup.exists()
    history = [
        json.loads(line)["event"] for line in (deployment.folder / "history.jsonl").read_text().splitlines()
    ]
    assert history == ["deploy", "deploy", "rollback"]
