"""tau2's pass^k over repeated trials of each task, with 95% bootstrap intervals over tasks.

pass^k is the leaderboard's reliability metric: for a task run n times with c successes, the chance that k trials
drawn from those n all succeed, C(c, k) / C(n, k); a domain's pass^k is its mean over tasks. Success and the
per-task formula are tau2's own (``tau2.metrics.agent_metrics``: a success is a reward of 1). As tau2 does, k runs
from 1 to the fewest trials any task ran.
"""

from __future__ import annotations

from collections.abc import Sequence

from agenttune.benchmarks.tau2.metrics import episode_reward
from agenttune.events.schema import EventLog
from agenttune.stats import with_intervals


def task_successes(logs: Sequence[EventLog]) -> dict[tuple[str, str], list[bool]]:
    """(domain, task id) -> whether each of its episodes succeeded, by tau2's definition."""
    from tau2.metrics.agent_metrics import is_successful

    successes: dict[tuple[str, str], list[bool]] = {}
    for log in logs:
        key = (log.metadata.get("domain", ""), log.task_id)
        successes.setdefault(key, []).append(is_successful(episode_reward(log)))
    return successes


def pass_hat_scores(logs: Sequence[EventLog]) -> list[dict[str, float]]:
    """Each task's ``pass^k`` for k = 1..(fewest trials of any task), in first-seen task order."""
    from tau2.metrics.agent_metrics import pass_hat_k

    successes = task_successes(logs)
    if not successes:
        raise ValueError("no EventLogs to compute pass^k from")
    trials = min(len(runs) for runs in successes.values())
    return [
        {f"pass^{k}": pass_hat_k(len(runs), sum(runs), k) for k in range(1, trials + 1)}
        for runs in successes.values()
    ]


def pass_hat_metrics(logs: Sequence[EventLog], seed: int = 0) -> dict[str, float]:
    """``pass^k`` (mean over tasks) for each k with ``/n`` (tasks) and its 95% bootstrap interval over tasks."""
    return with_intervals(pass_hat_scores(logs), seed)
