"""Oracle agents, scripted engines run through the episode loop: gold replays score 1.0; each perturbation makes
real failures where it applies."""

from __future__ import annotations

import pytest

pytest.importorskip("tau2.domains.telecom.environment")

from agenttune.benchmarks.tau2.harness import Tau2Harness  # noqa: E402
from agenttune.benchmarks.tau2.metrics import reward_info  # noqa: E402
from agenttune.benchmarks.tau2.oracle import (  # noqa: E402
    PERTURBATIONS,
    oracle_script,
    perturbed_script,
    scripted_agent,
)
from agenttune.benchmarks.tau2.runner import run_tasks  # noqa: E402
from agenttune.events.schema import EventKind, EventLog  # noqa: E402

ORACLE = scripted_agent("oracle")


def rewards(logs):
    return [log.rewards()["harness"] for log in logs]


SAMPLE = {"airline": ["1", "4", "7"], "retail": ["0", "1", "2", "5", "9"], "telecom": None}


@pytest.mark.parametrize("domain", ["airline", "retail", "telecom"])
def test_oracle_scores_one_on_a_sample(domain):
    tasks = Tau2Harness(domain).tasks("base")
    wanted = SAMPLE[domain]
    tasks = [t for t in tasks if t.id in wanted] if wanted else tasks[:5]
    logs = run_tasks(ORACLE, lambda: Tau2Harness(domain), tasks, domain, "oracle")
    assert rewards(logs) == [1.0] * len(tasks)
    log = EventLog.from_json(logs[0].to_json())  # round-trips through JSON
    assert log.metadata["domain"] == domain and log.metadata["termination_reason"] == "user_stop"
    assert log.metadata["agent"] == "oracle" and log.metadata["reward"] == 1.0
    assert log.metadata["engine"] == "ScriptedEngine" and log.events[-1].kind == EventKind.TURN_COMPLETE
    assert reward_info(log)["reward"] == 1.0


@pytest.mark.parametrize("perturbation", sorted(PERTURBATIONS))
def test_perturbations_fail_where_they_apply(perturbation):
    harness = Tau2Harness("retail")
    tasks = [t for t in harness.tasks("base") if t.id in ("0", "1")]
    kinds = harness.tool_kinds()
    assert all(perturbed_script(task, perturbation, kinds) is not None for task in tasks)
    logs = run_tasks(scripted_agent(perturbation, kinds), lambda: Tau2Harness("retail"), tasks, "retail")
    assert all(reward < 1.0 for reward in rewards(logs))
    if perturbation == "loop":
        assert {log.metadata["termination_reason"] for log in logs} == {"max_steps"}


def test_telecom_skip_write_skips_a_phone_action():
    harness = Tau2Harness("telecom")
    task = harness.tasks("base")[0]
    kinds = harness.tool_kinds() | harness.user_tool_kinds()
    assert perturbed_script(task, "skip_write", kinds) is not None
    (log,) = run_tasks(scripted_agent("skip_write", kinds), lambda: Tau2Harness("telecom"), [task], "telecom")
    assert log.rewards()["harness"] == 0.0


def test_perturbation_that_does_not_apply_plays_the_oracle():
    harness = Tau2Harness("telecom")
    task = harness.tasks("base")[0]  # gold actions are phone actions only: no agent read to repeat
    assert perturbed_script(task, "repeat_read", harness.tool_kinds()) is None
    assert oracle_script(task)


@pytest.mark.slow
@pytest.mark.parametrize("domain", ["airline", "retail", "telecom"])
def test_oracle_scores_one_on_every_task(domain):
    logs = run_tasks(ORACLE, lambda: Tau2Harness(domain), Tau2Harness(domain).tasks("base"), domain)
    assert rewards(logs) == [1.0] * len(logs)


def writes_before_reading(task) -> bool:
    """Whether the gold actions update a reservation without reading it first."""
    names = [action.name for action in task.evaluation_criteria.actions or []]
    return "update_reservation_flights" in names and "get_reservation_details" not in names


def test_oracle_resends_a_call_the_toolgraph_gate_blocked():
    """Gold action lists skip the reads before a write, so the gate blocks gold writes; the script sends
    the blocked call again (which the gate lets through) and still scores 1.0."""
    from agenttune.benchmarks.tau2.rules import rules_for
    from agenttune.selfevolve.build import build_toolgraph
    from agenttune.selfevolve.config import ToolGraphConfig
    from agenttune.selfevolve.guard import ToolGraphHarness

    harness = Tau2Harness("airline")
    config = ToolGraphConfig()
    graph = build_toolgraph(harness, rules_for("airline"), config)
    envs = []

    def make_harness():
        envs.append(ToolGraphHarness(Tau2Harness("airline"), graph, config))
        return envs[-1]

    tasks = [t for t in harness.tasks("base") if writes_before_reading(t)][:2]
    logs = run_tasks(ORACLE, make_harness, tasks, "airline", "oracle")
    blocks = [block for env in envs for block in env.blocks]
    for log in logs:
        blocked_ids = {
            e.payload.call_id for e in log.events if e.kind == EventKind.TOOL_RESULT and e.payload.is_error
        }
        calls = [e for e in log.events if e.kind == EventKind.TOOL_CALL]
        assert len({c.payload.call_id for c in calls}) == len(calls)
        for blocked in (c for c in calls if c.payload.call_id in blocked_ids):
            following = calls[calls.index(blocked) + 1]
            assert (following.payload.name, following.payload.arguments) == (
                blocked.payload.name,
                blocked.payload.arguments,
            )
    assert blocks and rewards(logs) == [1.0] * len(tasks)
