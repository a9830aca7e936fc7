"""Oracle agents: gold replays score 1.0; each perturbation makes real failures where it applies."""

from __future__ import annotations

import pytest

pytest.importorskip("tau2.domains.telecom.environment")

from agenttune.benchmarks.tau2.harness import Tau2Harness  # noqa: E402
from agenttune.benchmarks.tau2.oracle import PERTURBATIONS, OracleAgent, PerturbedOracle  # noqa: E402
from agenttune.benchmarks.tau2.runner import run_tasks  # noqa: E402
from agenttune.events.schema import EventKind, EventLog  # noqa: E402

SAMPLE = {"airline": ["1", "4", "7"], "retail": ["0", "1", "2", "5", "9"], "telecom": None}


@pytest.mark.parametrize("domain", ["airline", "retail", "telecom"])
def test_oracle_scores_one_on_a_sample(domain):
    harness = Tau2Harness(domain)
    tasks = harness.tasks("base")
    wanted = SAMPLE[domain]
    tasks = [t for t in tasks if t.id in wanted] if wanted else tasks[:5]
    logs = run_tasks(harness, tasks, OracleAgent, agent_name="oracle")
    assert [log.rewards()["total"] for log in logs] == [1.0] * len(tasks)
    log = EventLog.from_json(logs[0].to_json())  # round-trips through JSON
    assert log.metadata["domain"] == domain and log.metadata["termination_reason"] == "user_stop"
    reward = log.events[-1]
    assert reward.kind == EventKind.REWARD and reward.payload.scope == "episode"
    assert reward.payload.info["reward"] == 1.0


@pytest.mark.parametrize("perturbation", sorted(PERTURBATIONS))
def test_perturbations_fail_where_they_apply(perturbation):
    harness = Tau2Harness("retail")
    tasks = [t for t in harness.tasks("base") if t.id in ("0", "1")]
    agents = []

    def make(task):
        agents.append(PerturbedOracle(task, perturbation, harness.tool_kinds()))
        return agents[-1]

    logs = run_tasks(harness, tasks, make)
    assert all(agent.applies for agent in agents)
    assert all(log.rewards()["total"] < 1.0 for log in logs)
    if perturbation == "loop":
        assert {log.metadata["termination_reason"] for log in logs} == {"max_steps"}


def test_telecom_skip_write_skips_a_phone_action():
    harness = Tau2Harness("telecom")
    task = harness.tasks("base")[0]
    kinds = harness.tool_kinds() | harness.user_tool_kinds()
    agent = PerturbedOracle(task, "skip_write", kinds)
    (log,) = run_tasks(harness, [task], lambda _: agent)
    assert agent.applies and log.rewards()["total"] == 0.0


def test_perturbation_that_does_not_apply_plays_the_oracle():
    harness = Tau2Harness("telecom")
    task = harness.tasks("base")[0]  # gold actions are phone actions only: no agent read to repeat
    agent = PerturbedOracle(task, "repeat_read", harness.tool_kinds())
    assert not agent.applies


@pytest.mark.slow
@pytest.mark.parametrize("domain", ["airline", "retail", "telecom"])
def test_oracle_scores_one_on_every_task(domain):
    harness = Tau2Harness(domain)
    logs = run_tasks(harness, harness.tasks("base"), OracleAgent)
    assert all(log.rewards()["total"] == 1.0 for log in logs)


def writes_before_reading(task) -> bool:
    """Whether the gold actions update a reservation without reading it first."""
    names = [action.name for action in task.evaluation_criteria.actions or []]
    return "update_reservation_flights" in names and "get_reservation_details" not in names


def test_oracle_resends_a_call_the_toolgraph_gate_blocked():
    """Gold action lists skip the reads before a write, so the gate blocks gold writes; the script sends
    the blocked call again (which the gate lets through) and still scores 1.0."""
    from agenttune.selfevolve.build import build_toolgraph
    from agenttune.selfevolve.config import ToolGraphConfig
    from agenttune.selfevolve.guard import ToolGraphHarness

    harness = Tau2Harness("airline")
    config = ToolGraphConfig()
    env = ToolGraphHarness(harness, build_toolgraph(harness, "airline", config), config)
    tasks = [t for t in harness.tasks("base") if writes_before_reading(t)][:2]
    blocks, rewards = [], []
    for task in tasks:
        (log,) = run_tasks(env, [task], OracleAgent, agent_name="oracle")
        rewards.append(log.rewards()["total"])
        blocks += env.blocks
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
    assert blocks and rewards == [1.0] * len(tasks)
