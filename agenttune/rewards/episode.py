"""The ``reward`` group's mix scored on finished episodes: every value comes from the episode's EventLog.

:class:`EpisodeReward` turns each (EventLog, task) pair into the columns a TRL-style reward function reads
(``completions`` plus keyword columns, see :mod:`agenttune.rewards.cuad_search`), scores the batch with a
:class:`~agenttune.rewards.mix.RewardMix` and returns each log with its scores appended: one REWARD event (scope
``episode``) per component that scored it and one named ``total``. A component that raises on an episode fails
that episode only: its total is the mix's ``failure_value`` and the log gets an ERROR event (source ``reward``)
with the message, so the failure is counted and the batch goes on.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from agenttune.events.schema import ErrorPayload, Event, EventLog, RewardPayload, replace
from agenttune.rewards.mix import RewardMix

# (log, task) -> {"completion": the final reply, <column>: value, ...}
LogColumns = Callable[[EventLog, Any], dict[str, Any]]


class EpisodeReward:
    """Score finished episodes with ``mix``; ``columns`` reads what the reward functions need from a log and its task.

    >>> from agenttune.events.schema import Event, EventLog, TextPayload
    >>> def says_yes(completions, **kwargs):
    ...     return [1.0 if c == "yes" else 0.0 for c in completions]
    >>> reward = EpisodeReward(RewardMix({"yes": (says_yes, 2.0)}), lambda log, task: {"completion": task})
    >>> log = EventLog(id="e", events=[Event(payload=TextPayload(text="yes"))])
    >>> [scored.rewards("episode") for scored in reward([log, log], ["yes", "no"])]
    [{'yes': 1.0, 'total': 2.0}, {'yes': 0.0, 'total': 0.0}]
    """

    def __init__(self, mix: RewardMix, columns: LogColumns) -> None:
        self.mix = mix
        self.columns = columns

    def __call__(self, logs: Sequence[EventLog], tasks: Sequence[Any]) -> list[EventLog]:
        rows = [self.columns(log, task) for log, task in zip(logs, tasks, strict=True)]
        completions = [row.pop("completion") for row in rows]
        columns = {key: [row[key] for row in rows] for key in rows[0]} if rows else {}
        scores = self.mix.score(completions, **columns)
        scored = []
        for index, log in enumerate(logs):
            step = log.events[-1].step if log.events else 0
            events = [
                Event(
                    payload=RewardPayload(scope="episode", name=name, value=float(values[index])),
                    actor="judge",
                    step=step,
                )
                for name, values in scores.components.items()
                if values[index] is not None
            ]
            events.append(
                Event(
                    payload=RewardPayload(scope="episode", name="total", value=float(scores.totals[index])),
                    actor="judge",
                    step=step,
                )
            )
            if scores.failed[index]:
                message = "; ".join(scores.errors_on(index))
                events.append(
                    Event(payload=ErrorPayload(source="reward", message=message), actor="judge", step=step)
                )
            scored.append(replace(log, events=[*log.events, *events]))
        return scored


def harness_reward(completions: list, harness_reward: list[float], **kwargs: Any) -> list[float]:
    """The benchmark's own score of each episode, as its harness recorded it.

    >>> harness_reward(["", ""], harness_reward=[1.0, 0.0])
    [1.0, 0.0]
    """
    return list(harness_reward)


def harness_scored(score: Callable[[EventLog], float]) -> EpisodeReward:
    """The reward of a benchmark whose harness scores each episode itself (tau2's evaluators, BFCL's checkers):
    ``score(log)`` reads that score from the finished log."""
    columns = lambda log, task: {"completion": "", "harness_reward": score(log)}  # noqa: E731
    return EpisodeReward(RewardMix({"harness": (harness_reward, 1.0)}), columns)
