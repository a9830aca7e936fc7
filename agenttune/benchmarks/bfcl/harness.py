"""The BFCL multi-turn harness: :class:`~agenttune.harness.stateful_tools.StatefulToolsHarness` over BFCL's tool
classes, scored by BFCL's own checker when the episode ends.

It keeps the episode's tool calls per user turn and per step (one assistant message), and the step that ends the
last turn returns BFCL's verdict (:func:`~agenttune.benchmarks.bfcl.checker.bfcl_check`) as the episode's reward:
1.0 when valid, else 0.0, with ``info["bfcl"]`` holding the verdict. :meth:`close` scores an episode the loop
ended first. Before its first ``reset`` the harness describes every multi-turn tool (schemas, read/write kinds,
returned fields: :mod:`agenttune.benchmarks.bfcl.tools`), which is what the self-evolution method builds its
ToolGraph from.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from agenttune.benchmarks.bfcl import tools
from agenttune.benchmarks.bfcl.checker import bfcl_check, call_source
from agenttune.events.schema import Event, EventKind
from agenttune.harness.bfcl import bfcl_classes
from agenttune.harness.protocol import EpisodeDone, StepResult
from agenttune.harness.stateful_tools import StatefulTask, StatefulToolsHarness


class BfclHarness(StatefulToolsHarness):
    """Args:
    records: task id -> its BFCL question record (what the checker re-executes from).
    ground_truth: task id -> the reference calls of each turn.
    max_steps: actions per user turn.
    tool_timeout_s: deadline of one tool call.
    """

    def __init__(
        self,
        records: Mapping[str, Mapping[str, Any]],
        ground_truth: Mapping[str, Sequence[Sequence[str]]],
        max_steps: int = 20,
        tool_timeout_s: float = 30.0,
    ) -> None:
        super().__init__(bfcl_classes(), max_steps_per_turn=max_steps, tool_timeout_s=tool_timeout_s)
        self.records, self.ground_truth = records, ground_truth
        self.max_steps = max_steps
        self.calls: list[list[tuple[int, str]]] = []  # per user turn: (step, call source)

    def tool_schemas(self) -> list[dict[str, Any]]:
        """The task's tools once reset; every multi-turn tool before."""
        return super().tool_schemas() if self.state is not None else tools.tool_schemas()

    def tool_kinds(self) -> dict[str, str]:
        return tools.tool_kinds()

    def tool_outputs(self) -> dict[str, list[str]]:
        return tools.tool_outputs()

    def reset(self, task: StatefulTask) -> list[Event]:
        opening = super().reset(task)
        self.calls = [[] for _ in task.turns]
        return opening

    def step(self, action: Event) -> StepResult:
        turn = self.state.turn if self.state is not None else 0
        result = super().step(action)
        if action.kind == EventKind.TOOL_CALL:
            self.calls[turn].append((action.step, call_source(action.payload.name, action.payload.arguments)))
        return self._scored(result) if result.done else result

    def close(self, termination: str = "max_steps") -> StepResult:
        """End the episode now, without an action (its agent ran out of turns first), and score it: the turns
        not reached count as unplayed, which BFCL fails."""
        if self.state is None or self.state.done:
            raise EpisodeDone("no episode in progress to close")
        self.state.done, self.state.termination = True, termination
        self.state.baseline.restore()
        played = self.calls[: self.state.turn + 1]
        return self._scored(StepResult(observations=[], done=True, info=self.info()), played)

    def _scored(self, result: StepResult, calls: list[list[tuple[int, str]]] | None = None) -> StepResult:
        task_id = self.state.task.id
        per_step = [_by_step(turn) for turn in (self.calls if calls is None else calls)]
        verdict = bfcl_check(self.records[task_id], self.ground_truth[task_id], per_step)
        return replace(result, reward=float(verdict["valid"]), info={**result.info, "bfcl": verdict})


def _by_step(calls: list[tuple[int, str]]) -> list[list[str]]:
    """A turn's calls grouped by the step (assistant message) that made them, in order."""
    steps: dict[int, list[str]] = {}
    for step, source in calls:
        steps.setdefault(step, []).append(source)
    return list(steps.values())
