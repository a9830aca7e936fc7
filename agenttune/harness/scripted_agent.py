"""Scripted agents for any harness: a list of actions played through the one episode loop, exactly or with one
deliberate mistake.

A script is the list of agent actions (TOOL_CALL and TEXT events) to play; a benchmark builds its oracle's script
from its gold actions (tau2's ``evaluation_criteria.actions``, BFCL's ground-truth calls). :func:`script_engine`
plays it as a :class:`~agenttune.engines.scripted.ScriptedEngine`, so scripted agents run through the one episode
loop like the policy. Its policy reads where the script stands from the conversation alone: one action per
assistant turn, then ``done_text`` once the script is played. A call that a harness wrapper answered instead of
running it (a TOOL_RESULT starting with :data:`~agenttune.harness.protocol.BLOCKED_PREFIX`, e.g. ToolGraph's
pre-act gate) is sent once more before the script goes on: gold action lists name the writes but often not the
reads before them, so the gate blocks gold writes, and a script cannot read the gate's advice.

The perturbations (:data:`PERTURBATIONS`) turn an oracle's script into a failing one, each with one kind of
mistake; ``kind_of(event)`` says whether an action reads or writes (``"read"``, ``"write"`` or None), which the
benchmark knows and the perturbation does not.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from agenttune.engines.scripted import ScriptedEngine
from agenttune.events.projections.messages import Message, events_to_messages
from agenttune.events.schema import Event, EventKind
from agenttune.harness.protocol import BLOCKED_PREFIX

KindOf = Callable[[Event], "str | None"]
Perturbation = Callable[[list[Event], KindOf], "list[Event] | None"]


def _blocked(message: Message) -> bool:
    return message["role"] == "tool" and message["content"].startswith(BLOCKED_PREFIX)


class ScriptPolicy:
    """A :class:`~agenttune.engines.scripted.ScriptedEngine` policy playing ``script``, one action a turn, then
    ``done_text``."""

    def __init__(self, script: list[Event], done_text: str = "") -> None:
        self.turns = [events_to_messages([action])[0] for action in script]
        self.done_text = done_text

    def __call__(self, conversation: list[Message], tools: list[dict[str, Any]] | None = None) -> Message:
        sent = [i for i, message in enumerate(conversation) if message["role"] == "assistant"]
        blocked = [i + 1 < len(conversation) and _blocked(conversation[i + 1]) for i in sent]
        if sent and blocked[-1]:
            return dict(conversation[sent[-1]])
        played = blocked.count(False)
        if played >= len(self.turns):
            return {"role": "assistant", "content": self.done_text}
        return self.turns[played]


def script_engine(script: list[Event], done_text: str = "", tokenizer: Any = None) -> ScriptedEngine:
    """A scripted engine that plays ``script``: token-exact with a ``tokenizer`` (episodes a student can be
    distilled from), else its episodes are light logs."""
    return ScriptedEngine(ScriptPolicy(script, done_text), tokenizer)


# ---- perturbations: each takes the oracle's script and the benchmark's kind_of ----------------------
def skip_write(script: list[Event], kind_of: KindOf) -> list[Event] | None:
    """Leave out the last write."""
    writes = [i for i, event in enumerate(script) if kind_of(event) == "write"]
    return None if not writes else script[: writes[-1]] + script[writes[-1] + 1 :]


def repeat_read(script: list[Event], kind_of: KindOf, times: int = 3) -> list[Event] | None:
    """Where the first write is due, repeat the last read ``times`` times instead (the write never happens): a
    redundant-read failure."""
    writes = [i for i, event in enumerate(script) if kind_of(event) == "write"]
    if not writes:
        return None
    reads = [
        i for i in range(writes[0]) if script[i].kind == EventKind.TOOL_CALL and kind_of(script[i]) == "read"
    ]
    if not reads:
        return None
    repeated = [copy.deepcopy(script[reads[-1]]) for _ in range(times)]
    return script[: writes[0]] + repeated + script[writes[0] + 1 :]


def wrong_argument(script: list[Event], kind_of: KindOf) -> list[Event] | None:
    """Corrupt one argument of the first write call that has arguments (ids get a wrong suffix, numbers change,
    lists lose their last element)."""
    writes = [
        i
        for i, event in enumerate(script)
        if event.kind == EventKind.TOOL_CALL and event.payload.arguments and kind_of(event) == "write"
    ]
    if not writes:
        return None
    event = copy.deepcopy(script[writes[0]])
    key = sorted(event.payload.arguments)[0]
    event.payload.arguments[key] = _corrupt(event.payload.arguments[key])
    return script[: writes[0]] + [event] + script[writes[0] + 1 :]


def loop(script: list[Event], kind_of: KindOf, length: int = 1000) -> list[Event] | None:
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


def perturb(script: list[Event], perturbation: str, kind_of: KindOf) -> list[Event] | None:
    """``script`` with the mistake ``perturbation`` names, or None when the script offers no place for it."""
    if perturbation not in PERTURBATIONS:
        raise ValueError(f"unknown perturbation {perturbation!r}; expected one of {sorted(PERTURBATIONS)}")
    return PERTURBATIONS[perturbation](script, kind_of)
