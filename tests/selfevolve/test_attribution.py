"""Failure attribution on perturbed-oracle trajectories of real retail tasks."""

from __future__ import annotations

import pytest

pytest.importorskip("tau2.domains.retail.environment")

from agenttune.benchmarks.tau2.harness import Tau2Harness  # noqa: E402
from agenttune.benchmarks.tau2.oracle import scripted_agent  # noqa: E402
from agenttune.benchmarks.tau2.runner import run_tasks  # noqa: E402
from agenttune.events.schema import replace  # noqa: E402
from agenttune.selfevolve.attribution import SEVERITY, attribute, attribute_failures  # noqa: E402


@pytest.fixture(scope="module")
def runs():
    harness = Tau2Harness("retail", max_steps=20)
    task = next(t for t in harness.tasks("base") if t.id == "0")
    kinds = harness.tool_kinds()
    logs = {}
    for name in ("oracle", "skip_write", "repeat_read", "wrong_argument", "loop"):
        make_harness = lambda: Tau2Harness("retail", max_steps=20)  # noqa: E731
        logs[name] = run_tasks(scripted_agent(name, kinds), make_harness, [task], "retail")[0]
    return logs, kinds


def categories(log, kinds):
    return [a.category for a in attribute(log, kinds)]


def test_success_is_not_attributed(runs):
    logs, kinds = runs
    assert attribute(logs["oracle"], kinds) == []


def test_each_perturbation_has_its_symptom(runs):
    logs, kinds = runs
    assert categories(logs["loop"], kinds) == ["max_steps_exceeded", "progress_stall", "redundant_read"]
    assert categories(logs["wrong_argument"], kinds) == ["tool_execution_error"]
    assert categories(logs["repeat_read"], kinds) == ["redundant_read"]
    assert categories(logs["skip_write"], kinds) == ["strategy_error"]


def test_steps_domain_and_task_are_recorded(runs):
    logs, kinds = runs
    stall = attribute(logs["loop"], kinds)[1]
    assert stall.step == 6  # the first read-only turn at or after 30% of a 20-step budget
    assert (stall.domain, stall.task_id) == ("retail", "0")
    repeat = attribute(logs["repeat_read"], kinds)[0]
    first_write_index = 4  # the exchange call in the gold script, replaced by three repeats of the last read
    assert repeat.step == first_write_index


def test_at_most_two_per_task_by_severity(runs):
    logs, kinds = runs
    found = attribute_failures(list(logs.values()), {"retail": kinds})
    assert [a.category for a in found] == ["max_steps_exceeded", "tool_execution_error"]
    assert SEVERITY[0] == "max_steps_exceeded" and SEVERITY[-1] == "strategy_error"


def test_failures_blamed_on_the_user_are_not_attributed(runs):
    logs, kinds = runs
    blamed = replace(
        logs["skip_write"], metadata={**logs["skip_write"].metadata, "user_fault": "ended_early"}
    )
    assert attribute(blamed, kinds) == []
    assert categories(logs["skip_write"], kinds) == ["strategy_error"]
    found = attribute_failures([blamed, logs["repeat_read"]], {"retail": kinds})
    assert [(a.category, a.log_id) for a in found] == [("redundant_read", logs["repeat_read"].id)]
