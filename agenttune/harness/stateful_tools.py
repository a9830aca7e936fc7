"""``harness=stateful_tools``: tools that are methods of stateful objects, over several user turns.

Built for suites such as BFCL's multi-turn categories (:mod:`agenttune.harness.bfcl`), where the tools are
the public methods of Python classes (a file system, a message service, a trading bot) whose instances keep
state between calls. A :class:`StatefulTask` names the classes involved, the initial state of each, the user's
turns and, optionally, JSON tool specs. On :meth:`StatefulToolsHarness.reset` the harness

* builds a fresh instance of every involved class and loads its initial state: by default the instance is built
  without arguments and its ``loader`` method (BFCL's ``_load_scenario``) gets a deep copy of the state; with
  ``loader=None`` the state is the constructor's keyword arguments;
* offers the task's tool set: the tools named by its JSON specs (schemas from the specs,
  :func:`~agenttune.harness.tool_specs.function_schema`) or, without specs, every public method of the
  involved classes (schemas from signatures and docstrings), less ``excluded_tools``;
* opens with a SYSTEM event and the first user turn.

A TOOL_CALL runs through a :class:`~agenttune.harness.tools.ToolRegistry` (which hands the tool a deep copy of
the arguments). A TEXT action is the agent's reply and ends the current user turn, not the episode: the harness
answers with the next user turn as a USER event, and the reply to the last turn ends the episode
(``termination="answer"``). Each user turn has a budget of ``max_steps_per_turn`` actions: the action that
uses it up ends the turn the same way (its observations are followed by the next USER event), and on the last
turn ends the episode with ``termination="max_steps"``.

:meth:`StatefulToolsHarness.snapshot` deep-copies the episode state with the tool instances, and records the
process-global state (:class:`~agenttune.harness.process_state.ProcessState`: the globals of the tool classes'
modules and of ``global_modules``, ``os.environ``, the working folder); :meth:`restore` puts both back. What a
tool changes in that process-global state is undone when the episode ends and, for an episode abandoned before
its end, at the next ``reset``; see :mod:`~agenttune.harness.process_state` for what is and is not covered.
A tool that times out keeps running in its thread (see :mod:`~agenttune.harness.tools`) and may still change
its instance after the episode moved on.
"""

from __future__ import annotations

import copy
import importlib
import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agenttune.config import HarnessConfig
from agenttune.events.schema import ErrorPayload, Event, EventKind, SystemPayload, UserPayload
from agenttune.harness.process_state import ProcessState
from agenttune.harness.protocol import EpisodeDone, StepResult
from agenttune.harness.tool_specs import function_schema
from agenttune.harness.tools import ToolRegistry

DEFAULT_SYSTEM_PROMPT = (
    "You help a user over several requests. Call the tools you are given to carry out each request; they act on "
    "the user's real state and remember what earlier calls did. When a request is done, reply to the user in text."
)


@dataclass(frozen=True)
class StatefulTask:
    """One multi-turn task over stateful tool classes.

    Attributes:
        id: the task id.
        turns: the user's messages, one per user turn, in order (at least one).
        classes: names of the classes whose methods are the tools (the harness resolves them).
        initial_state: class name -> the state its instance starts from; a class not named starts from its
            default state.
        tool_specs: JSON tool specs (OpenAI-style or bare BFCL function docs); when given they are the tool set
            and its schemas, else every public method of the classes is a tool.
        excluded_tools: names left out of the tool set.
        tools_added: user turn index -> tools held out of the set until that turn starts (BFCL's
            ``missed_function``: the turn's message tells the agent about them).
        load_options: keyword arguments of every instance's ``loader`` call (BFCL's ``long_context=True``).
    """

    id: str
    turns: Sequence[str]
    classes: Sequence[str]
    initial_state: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    tool_specs: Sequence[Mapping[str, Any]] = ()
    excluded_tools: Sequence[str] = ()
    tools_added: Mapping[int, Sequence[str]] = field(default_factory=dict)
    load_options: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.turns:
            raise ValueError(f"task {self.id!r} has no user turn")
        late = [turn for turn in self.tools_added if not 0 < turn < len(self.turns)]
        if late:
            raise ValueError(
                f"task {self.id!r} adds tools at turns {late}, outside its turns 1..{len(self.turns) - 1}"
            )
        unknown = set(self.initial_state) - set(self.classes)
        if unknown:
            raise ValueError(
                f"task {self.id!r} gives initial state for classes it does not involve: {sorted(unknown)}"
            )


@dataclass
class StatefulEpisodeState:
    task: StatefulTask
    instances: dict[str, Any]  # class name -> its instance, the tools' state
    baseline: ProcessState  # process-global state at reset, put back when the episode ends
    turn: int = 0  # index of the current user turn
    turn_steps: int = 0  # actions in the current user turn
    steps: int = 0  # actions in the episode
    turn_endings: list[str] = field(default_factory=list)  # per finished turn: "answer" or "max_steps"
    done: bool = False
    termination: str = ""  # "answer" or "max_steps" once done
    final_text: str = ""  # the last TEXT reply


@dataclass(frozen=True)
class _Snapshot:
    state: StatefulEpisodeState
    process: ProcessState


def public_methods(instance: Any) -> dict[str, Callable[..., Any]]:
    """``instance``'s public methods (bound), base classes' first, each in definition order."""
    names = dict.fromkeys(
        name
        for klass in reversed(type(instance).__mro__[:-1])
        for name, value in vars(klass).items()
        if not name.startswith("_") and inspect.isfunction(value)
    )
    return {name: getattr(instance, name) for name in names}


class StatefulToolsHarness:
    """Stateful tool classes, several user turns per episode (see the module docstring).

    Args:
        classes: class name -> the class, or its import path (``"package.module.ClassName"``, imported at first
            use so that an optional package is needed only by the tasks that name it).
        max_steps_per_turn: actions per user turn (tool calls and the reply).
        tool_timeout_s: deadline of one tool call.
        loader: the method that loads an instance's initial state (called with a deep copy of it when the
            class has the method), or ``None`` to pass the state as constructor keyword arguments.
        global_modules: modules whose globals are restored besides those of the tool classes.
        system_prompt: the SYSTEM event opening every episode.

    ``StepResult.info`` holds ``turn`` (index of the current user turn), ``turns`` (how many the task has),
    ``steps`` and ``turn_steps`` (actions in the episode and in this turn), ``turn_endings`` (``"answer"`` or
    ``"max_steps"`` per finished turn), ``termination`` and ``final_text``.
    """

    def __init__(
        self,
        classes: Mapping[str, type | str],
        max_steps_per_turn: int = 20,
        tool_timeout_s: float = 30.0,
        loader: str | None = "_load_scenario",
        global_modules: Sequence[str] = (),
        system_prompt: str = DEFAULT_SYSTEM_PROMPT,
    ) -> None:
        if max_steps_per_turn < 1:
            raise ValueError(f"max_steps_per_turn must be at least 1, got {max_steps_per_turn}")
        self.classes = dict(classes)
        self.max_steps_per_turn = max_steps_per_turn
        self.tool_timeout_s = tool_timeout_s
        self.loader = loader
        self.global_modules = tuple(global_modules)
        self.system_prompt = system_prompt
        self.state: StatefulEpisodeState | None = None
        self.registry = ToolRegistry(timeout_s=tool_timeout_s)

    @classmethod
    def from_config(cls, classes: Mapping[str, type | str], cfg: HarnessConfig) -> StatefulToolsHarness:
        """``cfg.max_steps`` is the budget of one user turn."""
        return cls(classes, max_steps_per_turn=cfg.max_steps, tool_timeout_s=cfg.tool_timeout_s)

    def capabilities(self) -> frozenset[str]:
        return frozenset({"snapshot"})

    def tool_schemas(self) -> list[dict[str, Any]]:
        """The current task's tool set (empty before the first ``reset``)."""
        return self.registry.schemas()

    def resolve(self, name: str) -> type:
        """The class registered as ``name`` (importing it when given as a path)."""
        if name not in self.classes:
            raise ValueError(f"unknown tool class {name!r}; this harness knows {sorted(self.classes)}")
        target = self.classes[name]
        if isinstance(target, str):
            module, _, attribute = target.rpartition(".")
            target = self.classes[name] = getattr(importlib.import_module(module), attribute)
        return target

    def _instance(self, klass: type, initial: Mapping[str, Any] | None, options: Mapping[str, Any]) -> Any:
        config = copy.deepcopy(dict(initial)) if initial is not None else None
        if self.loader is None:
            return klass(**(config or {}))
        instance = klass()
        load = getattr(instance, self.loader, None)
        if callable(load):
            load(config or {}, **options)
        elif config:
            raise ValueError(f"{klass.__name__} has initial state but no {self.loader}() method to load it")
        return instance

    def _registry(self, task: StatefulTask, instances: Mapping[str, Any], turn: int = 0) -> ToolRegistry:
        """The task's tool set at user turn ``turn``, bound to ``instances``."""
        methods: dict[str, Callable[..., Any]] = {}
        for instance in instances.values():
            for name, method in public_methods(instance).items():
                if name in methods:
                    raise ValueError(
                        f"task {task.id!r}: classes {sorted(instances)} both define a tool {name!r}"
                    )
                methods[name] = method
        registry = ToolRegistry(timeout_s=self.tool_timeout_s)
        excluded = set(task.excluded_tools) | {
            name for added_at, names in task.tools_added.items() if added_at > turn for name in names
        }
        if not task.tool_specs:
            for name, method in methods.items():
                if name not in excluded:
                    registry.register(method)
            return registry
        for spec in task.tool_specs:
            schema = function_schema(spec)
            name = schema["function"]["name"]
            if name in excluded:
                continue
            if name not in methods:
                raise ValueError(
                    f"task {task.id!r}: tool spec {name!r} names no public method of {sorted(instances)}"
                )
            registry.register(methods[name], schema)
        return registry

    def _modules(self, task: StatefulTask) -> list[str]:
        return [self.resolve(name).__module__ for name in task.classes] + list(self.global_modules)

    def reset(self, task: StatefulTask) -> list[Event]:
        """Fresh instances in their initial state; returns a SYSTEM event and the first user turn."""
        if self.state is not None and not self.state.done:
            self.state.baseline.restore()  # undo what the abandoned episode changed
        baseline = ProcessState.capture(self._modules(task))
        instances = {
            name: self._instance(self.resolve(name), task.initial_state.get(name), task.load_options)
            for name in task.classes
        }
        self.registry = self._registry(task, instances)
        self.state = StatefulEpisodeState(task=task, instances=instances, baseline=baseline)
        return [
            Event(payload=SystemPayload(text=self.system_prompt), actor="system"),
            Event(payload=UserPayload(text=task.turns[0]), actor="user"),
        ]

    def _end_turn(self, ending: str, step: int) -> list[Event]:
        """Close the current user turn; the next turn's USER event, or nothing when the episode ended."""
        state = self.state
        state.turn_endings.append(ending)
        state.turn += 1
        state.turn_steps = 0
        if state.turn < len(state.task.turns):
            if state.turn in state.task.tools_added:
                self.registry = self._registry(state.task, state.instances, state.turn)
            return [Event(payload=UserPayload(text=state.task.turns[state.turn]), actor="user", step=step)]
        state.done, state.termination = True, ending
        state.baseline.restore()
        return []

    def _respond(self, action: Event) -> list[Event]:
        if action.kind == EventKind.TOOL_CALL:
            return [self.registry.execute(action)]
        if action.kind == EventKind.TEXT:
            self.state.final_text = action.payload.text
            return self._end_turn("answer", action.step)
        message = f"this harness takes tool_call or text actions, not {action.kind}"
        return [Event(payload=ErrorPayload(source="harness", message=message), actor="env", step=action.step)]

    def info(self) -> dict[str, Any]:
        state = self.state
        return {
            "turn": state.turn,
            "turns": len(state.task.turns),
            "steps": state.steps,
            "turn_steps": state.turn_steps,
            "turn_endings": list(state.turn_endings),
            "termination": state.termination,
            "final_text": state.final_text,
        }

    def step(self, action: Event) -> StepResult:
        """Apply one agent action; raises :class:`EpisodeDone` once the episode has ended."""
        if self.state is None:
            raise RuntimeError("call reset(task) before step()")
        if self.state.done:
            raise EpisodeDone(f"episode ended ({self.state.termination}); call reset(task) to start another")
        self.state.steps += 1
        self.state.turn_steps += 1
        turn = self.state.turn
        observations = self._respond(action)
        if self.state.turn == turn and self.state.turn_steps >= self.max_steps_per_turn:
            observations += self._end_turn("max_steps", action.step)
        return StepResult(observations=observations, done=self.state.done, info=self.info())

    def snapshot(self) -> _Snapshot:
        """The episode state with deep copies of the tool instances, and the process-global state."""
        return _Snapshot(copy.deepcopy(self.state), ProcessState.capture(self._modules(self.state.task)))

    def restore(self, snapshot: _Snapshot) -> None:
        self.state = copy.deepcopy(snapshot.state)
        snapshot.process.restore()
        self.registry = self._registry(self.state.task, self.state.instances, self.state.turn)
