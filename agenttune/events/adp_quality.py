"""Quality checks of ADP trajectories, one report per file.

* Tool-call format: an ``api_action`` names its function as an identifier (dots allowed, ``browser.click``)
  and passes keyword arguments whose keys are identifiers; a ``code_action`` has a language and non-empty code.
* Thoughts: the share of function calls (``api_action`` and ``code_action``) paired with a thought, meaning a
  non-empty ``description`` or a ``message_action`` right before the call, must reach ``min_thought_share``
  (0.8 by default).
* Termination: a trajectory ends with an agent action that closes the episode: a ``message_action`` or a
  call of one of :data:`FINISH_FUNCTIONS`. Ending on an observation or a mid-task action is flagged.
"""

from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from agenttune.events.adp import ApiAction, CodeAction, MessageAction, Trajectory, load_adp

IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
FINISH_FUNCTIONS = frozenset(
    {"finish", "submit", "exit", "stop", "answer", "terminate", "done", "send_msg_to_user"}
)


@dataclass
class QualityReport:
    """What the checks found in one file; ``ok`` when every check passed."""

    file: str
    trajectories: int = 0
    function_calls: int = 0
    calls_with_thought: int = 0
    thought_share: float = 1.0
    min_thought_share: float = 0.8
    format_errors: list[str] = field(default_factory=list)
    unterminated: list[str] = field(default_factory=list)

    @property
    def thoughts_ok(self) -> bool:
        return self.thought_share >= self.min_thought_share

    @property
    def ok(self) -> bool:
        return self.thoughts_ok and not self.format_errors and not self.unterminated

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "thoughts_ok": self.thoughts_ok, "ok": self.ok}


def check_trajectories(
    trajectories: list[Trajectory], file: str = "", min_thought_share: float = 0.8
) -> QualityReport:
    """Run the three checks over trajectories (see the module docstring)."""
    report = QualityReport(file=file, trajectories=len(trajectories), min_thought_share=min_thought_share)
    for trajectory in trajectories:
        previous = None
        for position, step in enumerate(trajectory.content):
            if isinstance(step, ApiAction | CodeAction):
                report.function_calls += 1
                thought = bool(step.description and step.description.strip()) or isinstance(
                    previous, MessageAction
                )
                report.calls_with_thought += thought
                report.format_errors.extend(
                    f"{trajectory.id} step {position}: {problem}" for problem in _format_problems(step)
                )
            previous = step
        if not _terminates(trajectory):
            report.unterminated.append(trajectory.id)
    if report.function_calls:
        report.thought_share = report.calls_with_thought / report.function_calls
    return report


def _format_problems(step: ApiAction | CodeAction) -> list[str]:
    if isinstance(step, CodeAction):
        problems = [] if step.language.strip() else ["code_action without a language"]
        return problems + ([] if step.content.strip() else ["code_action with empty code"])
    problems = (
        []
        if IDENTIFIER.match(step.function)
        else [f"api_action function {step.function!r} is not an identifier"]
    )
    return problems + [
        f"api_action {step.function!r} argument {key!r} is not an identifier"
        for key in step.kwargs
        if not IDENTIFIER.match(key)
    ]


def _terminates(trajectory: Trajectory) -> bool:
    if not trajectory.content:
        return False
    last = trajectory.content[-1]
    return isinstance(last, MessageAction) or (
        isinstance(last, ApiAction) and last.function in FINISH_FUNCTIONS
    )


def check_file(path: str | os.PathLike, min_thought_share: float = 0.8) -> QualityReport:
    """Load an ADP file and check it."""
    return check_trajectories(load_adp(path), file=str(Path(path)), min_thought_share=min_thought_share)
