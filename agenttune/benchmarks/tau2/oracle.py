"""tau2's scripted agents: a task's gold actions replayed, exactly or with one deliberate mistake, as scripted engines.

:func:`oracle_script` replays ``task.evaluation_criteria.actions`` in order (assistant actions as tool calls, user
actions, telecom's phone, as a message asking the user to run ``tool_name({...})``), then a final message that
states the task's ``communicate_info`` and asks whether there is anything else. It scores 1.0 on every airline,
retail and telecom task with the scripted user. :func:`perturbed_script` makes one kind of mistake (the
perturbations of :mod:`agenttune.harness.scripted_agent`, which read here whether an action reads or writes).
:func:`script_engine` plays a script through the one episode loop and then sends tau2's stop token.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agenttune.benchmarks.tau2.domains import STOP_TOKEN
from agenttune.engines.scripted import ScriptedEngine
from agenttune.events.schema import Event, EventKind, TextPayload, ToolCallPayload
from agenttune.harness.scripted_agent import PERTURBATIONS, perturb
from agenttune.harness.scripted_agent import script_engine as generic_script_engine

__all__ = ["PERTURBATIONS", "oracle_script", "perturbed_script", "script_engine", "scripted_agent"]

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


def script_engine(script: list[Event], tokenizer: Any = None) -> ScriptedEngine:
    """A scripted engine that plays ``script`` and then sends tau2's stop token (token-exact with a
    ``tokenizer``)."""
    return generic_script_engine(script, done_text=STOP_TOKEN, tokenizer=tokenizer)


# ---- perturbations (agenttune.harness.scripted_agent) read tau2's kinds of actions -------------------
def call_kind(name: str, arguments: dict[str, Any], kinds: dict[str, str]) -> str | None:
    """The kind of a call: its tool's, except that a write call naming another known tool among its arguments (a
    gateway such as banking's ``call_discoverable_agent_tool``) has the kind of the tool it runs."""
    if kinds.get(name) == "write":
        for value in arguments.values():
            if isinstance(value, str) and value != name and value in kinds:
                return kinds[value]
    return kinds.get(name)


def action_kind(event: Event, kinds: dict[str, str]) -> str | None:
    """A tool call's kind, or the kind of the user's tool that a message asks the user to run on their phone."""
    if event.kind == EventKind.TOOL_CALL:
        return call_kind(event.payload.name, event.payload.arguments, kinds)
    if event.kind == EventKind.TEXT and event.payload.text.startswith(USER_REQUEST):
        name, _, rest = event.payload.text[len(USER_REQUEST) :].partition("(")
        arguments = json.loads(rest[:-1]) if rest.startswith("{") else {}
        return call_kind(name, arguments, kinds)
    return None


def perturbed_script(task: Task, perturbation: str, tool_kinds: dict[str, str]) -> list[Event] | None:
    """The oracle script with one mistake, or None when the task offers no place for it.

    ``tool_kinds``: read/write annotation of the agent's tools and, in telecom, the user's.
    """
    return perturb(oracle_script(task), perturbation, lambda event: action_kind(event, tool_kinds))


def scripted_agent(
    kind: str, tool_kinds: dict[str, str] | None = None, tokenizer: Any = None
) -> Callable[[Task], ScriptedEngine]:
    """``oracle`` or a perturbation's name, as task -> scripted engine (token-exact with a ``tokenizer``, so a
    student can be distilled from its episodes); a perturbation that does not apply to a task plays the oracle
    there."""
    if kind == "oracle":
        return lambda task: script_engine(oracle_script(task), tokenizer)
    kinds = tool_kinds or {}
    return lambda task: script_engine(perturbed_script(task, kind, kinds) or oracle_script(task), tokenizer)
