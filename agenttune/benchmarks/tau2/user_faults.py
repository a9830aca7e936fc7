"""User faults: failed tau2 episodes whose failure is the simulated user's, not the agent's.

An LLM user can break a task the agent was solving: it quits, it ignores what the agent asks of it, or it
states facts it was never given. Such an episode says nothing about the agent, so the self-evolution method
must not learn from it. :func:`user_fault` names the first rule an episode breaks (``""`` when none does).
Only failed episodes (reward below 1) are checked; the rules, in order:

1. ``simulator_error``: the episode ended with ``error`` because the user simulator failed (an ERROR event
   whose source is ``user``).
2. ``contradicted_instructions``: a user message states an identifier the user was never given: a user id
   (``name_surname_1234``), an order id (``#W1234567``), a reservation code (six capitals and digits, with at
   least one of each), a phone number (compared by its digits), an email, a zip code (``zip code 12345``) or a
   full name (``my name is First Last``) that appears neither in the task's user scenario nor in what the user
   had seen before saying it (the agent's messages, the results of the user's own tool calls).
3. ``ended_early``: the user stopped the episode (``user_stop``) after an agent message that was not a closing
   one (none of :data:`~agenttune.benchmarks.tau2.users.CLOSING_MARKERS`, such as "anything else"), while a gold
   action was still unmatched (tau2's action checks) or at its first reply.
4. ``ignored_request``: a gold action the user had to do on their own device (``requestor == "user"``, telecom's
   phone) stayed unmatched although the agent asked for it by name (``toggle_airplane_mode`` or "toggle
   airplane mode") in a message the user answered.

The rules are deterministic and look only at the log and the task. They do not judge whether the user asked
for something other than its reason for calling (that needs a judge model).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from agenttune.benchmarks.tau2.metrics import reward_info
from agenttune.benchmarks.tau2.users import CLOSING_MARKERS, scenario_text
from agenttune.events.schema import EventKind, EventLog

if TYPE_CHECKING:
    from tau2.data_model.tasks import Task


def _digits(value: str) -> str:
    return re.sub(r"\D", "", value)


def _lower(value: str) -> str:
    return value.lower()


# kind -> (pattern whose first group is the stated value, how values of that kind are compared)
IDENTIFIERS: dict[str, tuple[re.Pattern[str], Callable[[str], str]]] = {
    "user_id": (re.compile(r"\b([a-z]+(?:_[a-z]+)+_\d{3,})\b"), _lower),
    "order_id": (re.compile(r"(#W\d{7})\b"), _lower),
    "reservation": (re.compile(r"\b((?=[A-Z]*\d)(?=\d*[A-Z])[A-Z0-9]{6})\b"), _lower),
    "phone": (re.compile(r"(\(?\b\d{3}\)?[-. ]?\d{3}[-. ]\d{4})\b"), _digits),
    "email": (re.compile(r"\b([\w.+-]+@[\w-]+(?:\.[\w-]+)+)"), _lower),
}
# kind -> pattern of a statement whose value must appear (case-insensitively) in what the user knew
STATEMENTS: dict[str, re.Pattern[str]] = {
    "zip_code": re.compile(r"\bzip ?(?:code)?\D{0,8}(\d{5})\b", re.IGNORECASE),
    "name": re.compile(r"\b(?:[Mm]y name is|I am|I'm|[Tt]his is) ([A-Z][a-z]+ [A-Z][a-z]+)\b"),
}


def user_fault(log: EventLog, task: Task) -> str:
    """The reason code (one of :data:`REASONS`) of the first rule the episode breaks, or ``""``: a successful
    episode, or a failure the rules do not blame on the user. ``log`` is a recorded tau2 episode (metadata
    ``reward`` and ``termination_reason``, the episode REWARD with tau2's reward info)."""
    if float(log.metadata.get("reward", 0.0)) >= 1.0:
        return ""
    return next((reason for reason, broken in RULES if broken(log, task)), "")


def _simulator_error(log: EventLog, task: Task) -> bool:
    return log.metadata.get("termination_reason") == "error" and any(
        e.kind == EventKind.ERROR and e.payload.source == "user" for e in log.events
    )


def _contradicted_instructions(log: EventLog, task: Task) -> bool:
    known = [scenario_text(task)]
    user_results = [str(call.get("content") or "") for call in log.metadata.get("user_tool_calls", [])]
    for event in log.events:
        if event.kind == EventKind.USER and _states_unknown(
            event.payload.text, "\n".join(known + user_results)
        ):
            return True
        if event.kind == EventKind.TEXT:
            known.append(event.payload.text)
    return False


def _states_unknown(text: str, known: str) -> bool:
    """Whether ``text`` states an identifier that does not occur in ``known``."""
    for pattern, normal in IDENTIFIERS.values():
        known_values = {normal(value) for value in pattern.findall(known)}
        if any(normal(value) not in known_values for value in pattern.findall(text)):
            return True
    lowered = known.lower()
    return any(
        any(word.lower() not in lowered for word in value.split())
        for pattern in STATEMENTS.values()
        for value in pattern.findall(text)
    )


def _ended_early(log: EventLog, task: Task) -> bool:
    if log.metadata.get("termination_reason") != "user_stop":
        return False
    agent_messages = [e.payload.text for e in log.events if e.kind == EventKind.TEXT]
    if not agent_messages or _closing(agent_messages[-1]):
        return False
    unmatched = any(not check.get("action_match") for check in reward_info(log).get("action_checks") or [])
    return unmatched or len(agent_messages) == 1


def _closing(text: str) -> bool:
    lowered = text.lower()
    return any(marker in lowered for marker in CLOSING_MARKERS)


def _ignored_request(log: EventLog, task: Task) -> bool:
    asked = " ".join(_answered_agent_messages(log)).lower()
    for check in reward_info(log).get("action_checks") or []:
        action = check.get("action", {})
        if check.get("action_match") or action.get("requestor") != "user":
            continue
        name = str(action.get("name", "")).lower()
        if name in asked or name.replace("_", " ") in asked:
            return True
    return False


def _answered_agent_messages(log: EventLog) -> list[str]:
    """The agent's messages the user replied to."""
    answered, pending = [], None
    for event in log.events:
        if event.kind == EventKind.TEXT:
            pending = event.payload.text
        elif event.kind == EventKind.USER and pending is not None:
            answered.append(pending)
            pending = None
    return answered


RULES: tuple[tuple[str, Callable[[EventLog, Task], bool]], ...] = (
    ("simulator_error", _simulator_error),
    ("contradicted_instructions", _contradicted_instructions),
    ("ended_early", _ended_early),
    ("ignored_request", _ignored_request),
)
REASONS = tuple(reason for reason, _ in RULES)
