"""Where a GRPO step's learning signal comes from: which reward components differ between the episodes of a group.

GRPO's advantage is an episode's reward minus the mean over its group (the episodes sampled from one prompt in one
step), so a reward component moves the policy only in groups whose episodes disagree on it. :func:`group_signal`
reads the rollouts a run logged (``eventlogs/train/step-<n>.jsonl``: each episode's ``reward`` events) and gives,
per component, the groups in which it varied and its weighted within-group standard deviation, averaged over all
groups: its share of the advantage. A component that seldom varies teaches the policy little, whatever its weight
(evidence, when every sampled query of a group finds the same passages).
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from agenttune.events.schema import EventLog


@dataclass(frozen=True)
class ComponentSignal:
    groups: int  # groups (prompt x step) seen
    varied: int  # groups in which the component's value differed between episodes
    weighted_std: float  # weight x the within-group population std, averaged over all groups


def group_signal(
    steps: Iterable[Sequence[EventLog]], weights: Mapping[str, float]
) -> dict[str, ComponentSignal]:
    """Per reward component (a name without a weight, like the logged ``total``, counts with weight 1), from the
    episodes of each step (``steps``: one sequence of episodes a step, grouped by ``task_id``)."""
    spread: dict[str, list[float]] = defaultdict(list)
    groups = 0
    for episodes in steps:
        by_task: dict[str, list[dict[str, float]]] = defaultdict(list)
        for log in episodes:
            by_task[log.task_id].append(log.rewards())
        for rewards in by_task.values():
            groups += 1
            for name in sorted({name for episode in rewards for name in episode}):
                spread[name].append(statistics.pstdev(episode.get(name, 0.0) for episode in rewards))
    return {
        name: ComponentSignal(
            groups, sum(std > 0 for std in stds), weights.get(name, 1.0) * sum(stds) / groups
        )
        for name, stds in spread.items()
    }
