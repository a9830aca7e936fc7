"""Scripted agents that replay a task's gold actions, exactly or with one deliberate mistake.

An agent in this package is any object with ``act(events: list[Event]) -> Event``: it sees the episode's
events so far (SYSTEM, USER, its own actions and the observations) and returns its next action, a
TOOL_CALL or a TEXT event. LLM agents are adapted to the same interface.

:class:`OracleAgent` replays ``task.evaluation_criteria.actions`` in order: assistant actions as tool
calls, user actions (telecom's phone) as a message asking the user to run ``tool_name({...})``, then a
final message that states the task's ``communicate_info`` and asks whether there is anything else. It
scores 1.0 on every airline, retail and telecom task with the scripted user.

Inside ToolGraph, a scripted agent answers a gate or loop block of its call the way the gate's message
allows: it sends the same call again, which then runs. (Gold action lists name the writes but often not the
reads before them, so the pre-act gate blocks gold writes; a script cannot read the gate's advice.)

:class:`PerturbedOracle` makes one kind of mistake (see :data:`PERTURBATIONS`).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from agenttune.benchmarks.tau2.domains import STOP_TOKEN
from agenttune.events.schema import Event, EventKind, TextPayload, ToolCallPayload
from agenttune.selfevolve.guard import GATE_PREFIX

if TYPE_CHECKING:
    from tau2.data_model.tasks import Action, Task

FINAL_MESSAGE = "Everything you asked for is done. {info}Is there anything else I can help you with?"


class Agent(Protocol):
    def act(self, events: list[Event]) -> Event:
        """The next action (a TOOL_CALL or TEXT event) given the episode's events so far."""


def tool_call_event(name: str, arguments: dict[str, Any], call_id: str) -> Event:
    return Event(payload=ToolCallPayload(call_id=call_id, name=name, arguments=arguments))


def text_event(text: str) -> Event:
    return Event(payload=TextPayload(text=text))


USER_REQUEST = "Please do this on your phone: "


def user_request_text(action: Action) -> str:
    """Ask the (scripted) user to run one of their own tools, in the form the scripted user follows."""
    return f"{USER_REQUEST}{action.name}({json.dumps(action.arguments)})"


def final_message(task: Task) -> str:
    info = (task.evaluation_criteria.communicate_info or []) if task.evaluation_criteria else []
    stated = "".join(f"{item.replace(',', '')}. " for item in info)
    return FINAL_MESSAGE.format(info=stated)


def gold_actions(task: Task) -> list[Action]:
    return list((task.evaluation_criteria.actions or []) if task.evaluation_criteria else [])


def blocked_by_toolgraph(events: list[Event], call: Event) -> bool:
    """Whether the last event is ToolGraph's answer blocking ``call`` (see selfevolve.guard)."""
    last = events[-1] if events else None
    return (
        last is not None
        and last.kind == EventKind.TOOL_RESULT
        and last.payload.is_error
        and last.payload.call_id == call.payload.call_id
        and last.payload.content.startswith(GATE_PREFIX)
    )


class ScriptAgent:
    """Plays a fixed list of actions, then ends the conversation with ``###STOP###``; a call that ToolGraph
    blocked is sent once more before the script goes on."""

    def __init__(self, script: list[Event]) -> None:
        self.script = script
        self._next = 0
        self._sent = 0
        self._last_call: Event | None = None

    def act(self, events: list[Event]) -> Event:
        if self._last_call is not None and blocked_by_toolgraph(events, self._last_call):
            action = copy.deepcopy(self._last_call)
        elif self._next >= len(self.script):
            return text_event(STOP_TOKEN)
        else:
            action = copy.deepcopy(self.script[self._next])
            self._next += 1
        if action.kind == EventKind.TOOL_CALL:  # call ids are unique within an episode
            self._sent += 1
            action.payload.call_id = f"call_{self._sent}"
            self._last_call = action
        return action


def oracle_script(task: Task) -> list[Event]:
    """The gold actions as agent events, followed by the final message."""
    script = []
    for index, action in enumerate(gold_actions(task)):
        if action.requestor == "user":
            script.append(text_event(user_request_text(action)))
        else:
            script.append(tool_call_event(action.name, dict(action.arguments), f"gold_{index}"))
    script.append(text_event(final_message(task)))
    return script


class OracleAgent(ScriptAgent):
    """Replays the task's gold actions."""

    def __init__(self, task: Task) -> None:
        super().__init__(oracle_script(task))


# ---- perturbations: each takes the task, the oracle script and the domain's tool kinds --------------
Perturbation = Callable[[list[Event], dict[str, str]], list[Event] | None]


def _is_write(event: Event, kinds: dict[str, str]) -> bool:
    """A write tool call, or a request that the user run a write tool on their phone."""
    if event.kind == EventKind.TOOL_CALL:
        return kinds.get(event.payload.name) == "write"
    if event.kind == EventKind.TEXT and event.payload.text.startswith(USER_REQUEST):
        return kinds.get(event.payload.text[len(USER_REQUEST) :].split("(")[0]) == "write"
    return False


def _is_read(event: Event, kinds: dict[str, str]) -> bool:
    return event.kind == EventKind.TOOL_CALL and kinds.get(event.payload.name) == "read"


def skip_write(script: list[Event], kinds: dict[str, str]) -> list[Event] | None:
    """Leave out the last write call."""
    writes = [i for i, event in enumerate(script) if _is_write(event, kinds)]
    return None if not writes else script[: writes[-1]] + script[writes[-1] + 1 :]


def repeat_read(script: list[Event], kinds: dict[str, str], times: int = 3) -> list[Event] | None:
    """Where the first write is due, repeat the last read ``times`` times instead (the write never
    happens): a redundant-read failure."""
    writes = [i for i, event in enumerate(script) if _is_write(event, kinds)]
    if not writes:
        return None
    reads = [i for i in range(writes[0]) if _is_read(script[i], kinds)]
    if not reads:
        return None
    repeated = [copy.deepcopy(script[reads[-1]]) for _ in range(times)]
    return script[: writes[0]] + repeated + script[writes[0] + 1 :]


def wrong_argument(script: list[Event], kinds: dict[str, str]) -> list[Event] | None:
    """Corrupt one argument of the first write call that has arguments (ids get a wrong suffix, numbers
    change, lists lose their last element)."""
    writes = [
        i
        for i, event in enumerate(script)
        if _is_write(event, kinds) and event.kind == EventKind.TOOL_CALL and event.payload.arguments
    ]
    if not writes:
        return None
    event = copy.deepcopy(script[writes[0]])
    key = sorted(event.payload.arguments)[0]
    event.payload.arguments[key] = _corrupt(event.payload.arguments[key])
    return script[: writes[0]] + [event] + script[writes[0] + 1 :]


def loop(script: list[Event], kinds: dict[str, str], length: int = 1000) -> list[Event] | None:
    """Repeat the first tool call until the step budget runs out."""
    calls = [event for event in script if event.kind == EventKind.TOOL_CALL]
    if not calls:
        return None
    return [copy.deepcopy(calls[0]) for _ in range(length)]


def _corrupt(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        return value + "_X"
    if isinstance(value, list) and value:
        return value[:-1] if len(value) > 1 else [_corrupt(value[0])]
    if isinstance(value, dict) and value:
        key = sorted(value)[0]
        return {**value, key: _corrupt(value[key])}
    return "corrupted"


PERTURBATIONS: dict[str, Perturbation] = {
    "skip_write": skip_write,
    "repeat_read": repeat_read,
    "wrong_argument": wrong_argument,
    "loop": loop,
}


class PerturbedOracle(ScriptAgent):
    """The oracle with one mistake; ``applies`` is False when the task offers no place for it (then it
    plays the plain oracle)."""

    def __init__(self, task: Task, perturbation: str, tool_kinds: dict[str, str]) -> None:
        """``tool_kinds``: read/write annotation of the agent's tools and, in telecom, the user's."""
        if perturbation not in PERTURBATIONS:
            raise ValueError(
                f"unknown perturbation {perturbation!r}; expected one of {sorted(PERTURBATIONS)}"
            )
        script = oracle_script(task)
        perturbed = PERTURBATIONS[perturbation](script, tool_kinds)
        self.applies = perturbed is not None
        super().__init__(perturbed if perturbed is not None else script)
