"""``harness=tools``: a question and a registry of tools; the agent calls tools until it answers.

A TOOL_CALL action runs through the :class:`~agenttune.harness.tools.ToolRegistry` and comes back as one
TOOL_RESULT event (the code-executing tool, ``python_exec``, runs confined: see :meth:`ToolsHarness.from_config`);
a TEXT action is the agent's final message (answer inside ``<answer>...</answer>``, which the answer rewards
extract) and ends the episode; any other kind comes back as an ERROR event. Every action counts against
``max_steps``: the step that reaches it ends the episode with ``termination="max_steps"``.

:meth:`ToolsHarness.snapshot` copies the episode state (the task, the step count, whether and why it ended, and
what a subclass adds to :class:`EpisodeState`). Tools with state of their own keep it across a restore.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from agenttune.config import HarnessConfig
from agenttune.events.schema import (
    ErrorPayload,
    Event,
    EventKind,
    SystemPayload,
    UserPayload,
)
from agenttune.harness.protocol import EpisodeDone, StepResult
from agenttune.harness.sandbox import Sandbox
from agenttune.harness.tools import ToolRegistry

DEFAULT_SYSTEM_PROMPT = (
    "Answer the user's question. Call the tools you are given when they help. "
    "When you are done, reply with your final answer inside <answer>...</answer>."
)


class Task(Protocol):
    """What a question-answering harness needs of a task (``QuestionRecord`` from agenttune.rag fits)."""

    id: str
    question: str


@dataclass(frozen=True)
class Question:
    """A minimal task: an id and a question."""

    id: str
    question: str


@dataclass
class EpisodeState:
    task: Task
    steps: int = 0
    done: bool = False
    termination: str = ""  # "answer" or "max_steps" once done
    final_text: str = ""  # the TEXT action that ended the episode


class ToolsHarness:
    """A question plus tools.

    Args:
        tools: the callables the agent may call, or a ready :class:`ToolRegistry`.
        max_steps: actions per episode (tool calls and the final message).
        tool_timeout_s: deadline of one tool call (ignored when ``tools`` is a registry).
        system_prompt: the SYSTEM event opening every episode.

    ``StepResult.info`` holds ``steps`` (actions so far), ``termination`` (``""``, ``"answer"`` or
    ``"max_steps"``) and ``final_text``; ``registry.metrics()`` counts calls and errors over all episodes.
    """

    def __init__(
        self,
        tools: ToolRegistry | Iterable[Callable[..., Any]],
        max_steps: int = 50,
        tool_timeout_s: float = 30.0,
        system_prompt: str = DEFAULT_SYSTEM_PROMPT,
    ) -> None:
        self.registry = (
            tools if isinstance(tools, ToolRegistry) else ToolRegistry(tools, timeout_s=tool_timeout_s)
        )
        self.max_steps = max_steps
        self.system_prompt = system_prompt
        self.state: EpisodeState | None = None

    @classmethod
    def from_config(
        cls, tools: ToolRegistry | Iterable[Callable[..., Any]], cfg: HarnessConfig
    ) -> ToolsHarness:
        """The harness ``cfg`` describes; with ``cfg.code_execution`` the agent also gets ``python_exec``, which runs
        every program in a :class:`~agenttune.harness.sandbox.Sandbox` (time limit ``tool_timeout_s``; it refuses
        to run unconfined unless ``require_isolation`` is off)."""
        harness = cls(tools, max_steps=cfg.max_steps, tool_timeout_s=cfg.tool_timeout_s)
        if cfg.code_execution:
            harness.registry.register(Sandbox.from_config(cfg).python_exec)
        return harness

    def capabilities(self) -> frozenset[str]:
        return frozenset({"snapshot"})

    def tool_schemas(self) -> list[dict[str, Any]]:
        return self.registry.schemas()

    def _new_state(self, task: Task) -> EpisodeState:
        return EpisodeState(task=task)

    def reset(self, task: Task) -> list[Event]:
        """Start an episode on ``task`` (anything with ``id`` and ``question``): a SYSTEM and a USER event."""
        self.state = self._new_state(task)
        return [
            Event(payload=SystemPayload(text=self.system_prompt), actor="system"),
            Event(payload=UserPayload(text=task.question), actor="user"),
        ]

    def _respond(self, action: Event) -> list[Event]:
        """The observations answering one action (sets ``done`` on a final message)."""
        if action.kind == EventKind.TOOL_CALL:
            return [self.registry.execute(action)]
        if action.kind == EventKind.TEXT:
            self.state.done, self.state.termination = True, "answer"
            self.state.final_text = action.payload.text
            return []
        message = f"this harness takes tool_call or text actions, not {action.kind}"
        return [Event(payload=ErrorPayload(source="harness", message=message), actor="env", step=action.step)]

    def info(self) -> dict[str, Any]:
        """What ``step`` reports besides the observations (subclasses add their own keys)."""
        state = self.state
        return {"steps": state.steps, "termination": state.termination, "final_text": state.final_text}

    def step(self, action: Event) -> StepResult:
        """Apply one agent action; raises :class:`EpisodeDone` once the episode has ended."""
        if self.state is None:
            raise RuntimeError("call reset(task) before step()")
        if self.state.done:
            raise EpisodeDone(f"episode ended ({self.state.termination}); call reset(task) to start another")
        self.state.steps += 1
        observations = self._respond(action)
        if not self.state.done and self.state.steps >= self.max_steps:
            self.state.done, self.state.termination = True, "max_steps"
        return StepResult(observations=observations, done=self.state.done, info=self.info())

    def snapshot(self) -> EpisodeState:
        return copy.deepcopy(self.state)

    def restore(self, snapshot: EpisodeState) -> None:
        self.state = copy.deepcopy(snapshot)
