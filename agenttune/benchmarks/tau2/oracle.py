"""Scripted agents that replay a task's gold actions, exactly or with one deliberate mistake, as scripted engines.

A script is the list of agent actions (TOOL_CALL and TEXT events) to play: :func:`oracle_script` replays
``task.evaluation_criteria.actions`` in order (assistant actions as tool calls, user actions, telecom's phone, as a
message asking the user to run ``tool_name({...})``), then a final message that states the task's
``communicate_info`` and asks whether there is anything else. It scores 1.0 on every airline, retail and telecom task
with the scripted user. :func:`perturbed_script` makes one kind of mistake (see :data:`PERTURBATIONS`).

:func:`script_engine` plays a script as a :class:`~agenttune.engines.scripted.ScriptedEngine`, so scripted agents
run through the one episode loop like the policy. Its policy reads where the script stands from the conversation
alone: one action per assistant turn, then ``###STOP###`` once the script is played. A call that a harness wrapper
answered instead of running it (a TOOL_RESULT starting with :data:`~agenttune.harness.protocol.BLOCKED_PREFIX`, e.g.
ToolGraph's pre-act gate) is sent once more before the script goes on: gold action lists name the writes but often
not the reads before them, so the gate blocks gold writes, and a script cannot read the gate's advice.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agenttune.benchmarks.tau2.domains import STOP_TOKEN
from agenttune.engines.scripted import ScriptedEngine
from agenttune.events.projections.messages import Message, events_to_messages
from agenttune.events.schema import Event, EventKind, TextPayload, ToolCallPayload
from agenttune.harness.protocol import BLOCKED_PREFIX

if TYPE_CHECKING:
    from tau2.data_model.tasks import Action, Task

FINAL_MESSAGE = "Everything you asked for is done. {info}Is there anything else I can help you with?"
USER_REQUEST = "Please do this on your phone: "


def tool_call_event(name: str, arguments: dict[str, Any], call_id: str) -> Event:
    return Event(payload=ToolCallPayload(call_id=call_id, name=name, arguments=arguments))


def text_event(text: str) -> Event:
    return Event(payload=TextPayload(text=text))


def user_request_text(action: Action) -> str:
    """Ask the (scripted) user to run one of their own tools, in the form the scripted user follows."""
    return f"{USER_REQUEST}{action.name}({json.dumps(action.arguments)})"


def final_message(task: Task) -> str:
    info = (task.evaluation_criteria.communicate_info or []) if task.evaluation_criteria else []
    stated = "".join(f"{item.replace(',', '')}. " for item in info)
    return FINAL_MESSAGE.format(info=stated)


def gold_actions(task: Task) -> list[Action]:
    return list((task.evaluation_criteria.actions or []) if task.evaluation_criteria else [])


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


def _blocked(message: Message) -> bool:
    return message["role"] == "tool" and message["content"].startswith(BLOCKED_PREFIX)


class ScriptPolicy:
    """A :class:`~agenttune.engines.scripted.ScriptedEngine` policy playing ``script``, one action a turn."""

    def __init__(self, script: list[Event]) -> None:
        self.turns = [events_to_messages([action])[0] for action in script]

    def __call__(self, conversation: list[Message], tools: list[dict[str, Any]] | None = None) -> Message:
        sent = [i for i, message in enumerate(conversation) if message["role"] == "assistant"]
        blocked = [i + 1 < len(conversation) and _blocked(conversation[i + 1]) for i in sent]
        if sent and blocked[-1]:
            return dict(conversation[sent[-1]])
        played = blocked.count(False)
        if played >= len(self.turns):
            return {"role": "assistant", "content": STOP_TOKEN}
        return self.turns[played]


def script_engine(script: list[Event]) -> ScriptedEngine:
    """A scripted engine that plays ``script`` (tokenizer-free: its episodes are light logs)."""
    return ScriptedEngine(ScriptPolicy(script))


# ---- perturbations: each takes the task, the oracle script and the domain's tool kinds --------------
Perturbation = Callable[[list[Event], dict[str, str]], list[Event] | None]


def call_kind(name: str, arguments: dict[str, Any], kinds: dict[str, str]) -> str | None:
    """The kind of a call: its tool's, except that a write call naming another known tool among its arguments (a
    gateway such as banking's ``call_discoverable_agent_tool``) has the kind of the tool it runs."""
    if kinds.get(name) == "write":
        for value in arguments.values():
            if isinstance(value, str) and value != name and value in kinds:
                return kinds[value]
    return kinds.get(name)


def _kind(event: Event, kinds: dict[str, str]) -> str | None:
    if event.kind == EventKind.TOOL_CALL:
        return call_kind(event.payload.name, event.payload.arguments, kinds)
    if event.kind == EventKind.TEXT and event.payload.text.startswith(USER_REQUEST):
        name, _, rest = event.payload.text[len(USER_REQUEST) :].partition("(")
        arguments = json.loads(rest[:-1]) if rest.startswith("{") else {}
        return call_kind(name, arguments, kinds)
    return None


def _is_write(event: Event, kinds: dict[str, str]) -> bool:
    """A write tool call, or a request that the user run a write tool on their phone."""
    return _kind(event, kinds) == "write"


def _is_read(event: Event, kinds: dict[str, str]) -> bool:
    return event.kind == EventKind.TOOL_CALL and _kind(event, kinds) == "read"


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


def perturbed_script(task: Task, perturbation: str, tool_kinds: dict[str, str]) -> list[Event] | None:
    """The oracle script with one mistake, or None when the task offers no place for it.

    ``tool_kinds``: read/write annotation of the agent's tools and, in telecom, the user's.
    """
    if perturbation not in PERTURBATIONS:
        raise ValueError(f"unknown perturbation {perturbation!r}; expected one of {sorted(PERTURBATIONS)}")
    return PERTURBATIONS[perturbation](oracle_script(task), tool_kinds)


def scripted_agent(kind: str, tool_kinds: dict[str, str] | None = None) -> Callable[[Task], ScriptedEngine]:
    """``oracle`` or a perturbation's name, as task -> scripted engine; a perturbation that does not apply to a
    task plays the oracle there."""
    if kind == "oracle":
        return lambda task: script_engine(oracle_script(task))
    kinds = tool_kinds or {}
    return lambda task: script_engine(perturbed_script(task, kind, kinds) or oracle_script(task))
