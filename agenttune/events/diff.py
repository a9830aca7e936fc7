"""Where two runs' episodes part: the same tasks played twice (two seeds, two commits, two engines, a resumed run),
compared episode by episode.

Episodes are paired by task id, the n-th episode of a task in one file with the n-th of that task in the other (a
GRPO group or repeated trials hold several). Two paired episodes are the same when their events' payloads are: what
was said, called and returned, in order. Token logprobs, timings and metadata are not compared, so two decodes that
chose the same tokens with slightly different numbers count as the same. For a pair that differs,
:func:`first_divergence` gives the first event that differs and the first character of it that does.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import msgspec

from agenttune.events.schema import Event, EventLog

EXCERPT = 40  # characters shown on each side of a divergence


@dataclass(frozen=True)
class Divergence:
    """The first difference between two episodes of one task: the event's index, its kind in each episode
    ("end" when an episode has no event there) and, from the first character that differs, an excerpt of each."""

    task_id: str
    event: int
    kind: tuple[str, str]
    first: str
    second: str


@dataclass(frozen=True)
class Comparison:
    """Paired episodes that are the same and those that differ, and the task ids found in one file only."""

    same: int
    diverging: list[Divergence]
    only_first: list[str]
    only_second: list[str]

    def summary(self) -> dict:
        """Counts, and how many pairs first differ at an event of each kind (its kind in the first file) and at each
        event index (2 is a ReAct episode's first policy turn, after the system prompt and the question)."""
        return {
            "pairs": self.same + len(self.diverging),
            "same": self.same,
            "differ": len(self.diverging),
            "first_difference_kind": dict(Counter(d.kind[0] for d in self.diverging).most_common()),
            "first_difference_event": dict(sorted(Counter(d.event for d in self.diverging).items())),
            "only_first": len(self.only_first),
            "only_second": len(self.only_second),
        }


def event_text(event: Event) -> str:
    """An event's payload as compared: its JSON (keys sorted), so that any field that differs is seen."""
    return msgspec.json.encode(msgspec.to_builtins(event.payload), order="sorted").decode()


def first_divergence(first: EventLog, second: EventLog) -> Divergence | None:
    """The first event at which two episodes differ, or None when every payload is the same."""
    for index in range(max(len(first.events), len(second.events))):
        a = event_text(first.events[index]) if index < len(first.events) else ""
        b = event_text(second.events[index]) if index < len(second.events) else ""
        if a != b:
            at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
            return Divergence(
                task_id=first.task_id,
                event=index,
                kind=(_kind(first, index), _kind(second, index)),
                first=a[max(0, at - EXCERPT) : at + EXCERPT],
                second=b[max(0, at - EXCERPT) : at + EXCERPT],
            )
    return None


def compare(first: Sequence[EventLog], second: Sequence[EventLog]) -> Comparison:
    """Pair the episodes of two runs by task id (in order within a task) and find where each pair parts."""
    by_task: dict[str, list[EventLog]] = defaultdict(list)
    for log in second:
        by_task[log.task_id].append(log)
    seen: Counter = Counter()
    same, diverging, only_first = 0, [], []
    for log in first:
        others = by_task.get(log.task_id, [])
        if seen[log.task_id] >= len(others):
            only_first.append(log.task_id)
            continue
        divergence = first_divergence(log, others[seen[log.task_id]])
        seen[log.task_id] += 1
        if divergence is None:
            same += 1
        else:
            diverging.append(divergence)
    only_second = [task for task, logs in by_task.items() for _ in range(len(logs) - seen[task])]
    return Comparison(same, diverging, only_first, only_second)


def _kind(log: EventLog, index: int) -> str:
    return log.events[index].payload.kind.value if index < len(log.events) else "end"
