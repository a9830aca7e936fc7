"""group_signal: a reward component counts toward GRPO's advantage only in groups whose episodes disagree on it."""

from __future__ import annotations

import pytest

from agenttune.events.schema import Event, EventLog, RewardPayload
from agenttune.tracking.group_signal import group_signal


def episode(task: str, **rewards: float) -> EventLog:
    events = [
        Event(payload=RewardPayload(scope="episode", name=n, value=v), actor="judge")
        for n, v in rewards.items()
    ]
    return EventLog(id=f"{task}-{len(rewards)}", source="cuad_search", task_id=task, events=events)


def test_a_component_that_never_varies_within_a_group_has_no_signal_whatever_it_does_across_groups():
    steps = [
        # step 1: q1's two episodes agree on evidence and split on format; q2's agree on both (but differ from q1's)
        [
            episode("q1", evidence=1.0, format=1.0),
            episode("q1", evidence=1.0, format=0.0),
            episode("q2", evidence=0.0, format=1.0),
            episode("q2", evidence=0.0, format=1.0),
        ],
        # step 2: q1 again, now splitting on evidence
        [episode("q1", evidence=1.0, format=1.0), episode("q1", evidence=0.0, format=1.0)],
    ]
    signal = group_signal(steps, {"evidence": 0.5, "format": 0.2})
    assert signal["format"].groups == signal["evidence"].groups == 3
    assert signal["format"].varied == signal["evidence"].varied == 1
    assert signal["format"].weighted_std == pytest.approx(0.2 * 0.5 / 3)  # population std of (1, 0) is 0.5
    assert signal["evidence"].weighted_std == pytest.approx(0.5 * 0.5 / 3)


def test_a_component_without_a_weight_counts_with_weight_one():
    steps = [[episode("q1", total=0.2), episode("q1", total=0.6)]]
    assert group_signal(steps, {"format": 0.2})["total"].weighted_std == pytest.approx(0.2)
