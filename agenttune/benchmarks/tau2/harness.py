"""The in-process tau2 harness: one domain's real tools and database, a simulated user, tau2's reward.

``reset(task)`` builds a fresh environment (a copy of the database parsed once per process), applies the
task's initial state and returns the SYSTEM (domain policy) and USER (first user message) events.
``step(action)`` takes one agent action:

- a TOOL_CALL runs against the environment (``Environment.get_response``) and comes back as a
  TOOL_RESULT; a failing call is a TOOL_RESULT with ``is_error=True``, never an exception;
- a TEXT is a message to the user, answered by the user as a USER event; a TEXT containing
  ``###STOP###`` ends the episode (``agent_stop``), as does a user reply containing it (``user_stop``);
- anything else is answered with an ERROR event.

Every action counts one step; the episode ends with ``max_steps`` when the budget is spent and with
``error`` after ``max_errors`` failed actions or when the user simulator fails; ``close`` ends and scores it
before that (an agent that ran out of turns). Several harnesses can run episodes at once: each holds its own
environment, user and trajectory. At the end the
StepResult carries the reward and ``info = {"termination_reason", "reward_info", "steps",
"user_tool_calls"}``, all JSON-serialisable.

Snapshots deep-copy the environment's databases and the trajectory (``capabilities() == {"snapshot"}``);
the simulated user's own memory (an LLM user's conversation) is not part of a snapshot.
"""

from __future__ import annotations

import copy
import json
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agenttune.benchmarks.tau2.domains import STOP_TOKEN, load_tasks, make_environment
from agenttune.benchmarks.tau2.reward import evaluate_episode
from agenttune.benchmarks.tau2.users import ScriptedUser, User
from agenttune.events.schema import (
    ErrorPayload,
    Event,
    EventKind,
    SystemPayload,
    ToolResultPayload,
    UserPayload,
)
from agenttune.harness.protocol import EpisodeDone, StepResult

if TYPE_CHECKING:
    from tau2.data_model.message import Message
    from tau2.data_model.tasks import Task
    from tau2.environment.environment import Environment

SYSTEM_PREFACE = (
    "You are a customer service agent. Follow the policy below; act only through the tools you are "
    "given, and talk to the user with plain messages.\n\n"
)


@dataclass
class _Episode:
    task: Task
    env: Environment
    messages: list[Message]
    steps: int = 0
    errors: int = 0
    done: bool = False
    user_tool_calls: list[dict[str, Any]] = field(default_factory=list)


class _Device:
    """The user's phone (telecom): runs user tools and records them in the episode's trajectory."""

    def __init__(self, harness: Tau2Harness) -> None:
        self._harness = harness

    def tool_schemas(self) -> list[dict[str, Any]]:
        return self._harness.user_tool_schemas()

    def call(self, name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        from tau2.data_model.message import ToolCall, UserMessage

        episode = self._harness._require_episode()
        tool_call = ToolCall(
            id=f"user_{uuid.uuid4().hex[:8]}", name=name, arguments=arguments, requestor="user"
        )
        response = episode.env.get_response(tool_call)
        episode.messages += [UserMessage(role="user", tool_calls=[tool_call]), response]
        episode.user_tool_calls.append(
            {"name": name, "arguments": arguments, "content": response.content, "is_error": response.error}
        )
        return response.content or "", response.error


class Tau2Harness:
    """Runs tau2 tasks of one domain in-process (implements ``agenttune.harness.protocol.Harness``)."""

    def __init__(
        self, domain: str, user: User | None = None, max_steps: int = 50, max_errors: int = 10
    ) -> None:
        self.domain = domain
        self.user = user if user is not None else ScriptedUser()
        self.max_steps = max_steps
        self.max_errors = max_errors
        self._template = make_environment(domain)  # tool definitions and policy; never mutated
        self._tool_schemas = [
            tool.openai_schema for tool in sorted(self._template.get_tools(), key=lambda t: t.name)
        ]
        self._user_tool_schemas = (
            []
            if self._template.user_tools is None
            else [
                tool.openai_schema for tool in sorted(self._template.get_user_tools(), key=lambda t: t.name)
            ]
        )
        self._episode: _Episode | None = None
        self._device = _Device(self)

    # ---- description of the domain -------------------------------------------------------------
    def capabilities(self) -> frozenset[str]:
        return frozenset({"snapshot"})

    def tool_schemas(self) -> list[dict[str, Any]]:
        return copy.deepcopy(self._tool_schemas)

    def user_tool_schemas(self) -> list[dict[str, Any]]:
        """Schemas of the user's own tools (telecom's phone); empty in other domains."""
        return copy.deepcopy(self._user_tool_schemas)

    def tool_kinds(self) -> dict[str, str]:
        """tau2's annotation of each agent tool: ``read``, ``write``, ``think`` or ``generic``; plus, where the
        domain has them (banking), the kinds of the discoverable tools its gateway tools run."""
        from tau2.environment.toolkit import get_tool_types

        kinds = {name: kind.value for name, kind in get_tool_types(self._template.tools).items()}
        discoverable = getattr(self._template.tools, "discoverable_tool_kinds", None)
        return kinds | (discoverable() if discoverable else {})

    def tool_node(self, name: str, arguments: dict[str, Any]) -> str:
        """The ToolGraph node of a call: the tool a gateway call runs (banking), else the tool's name."""
        node = getattr(self._template.tools, "tool_node", None)
        return node(name, arguments) if node else name

    def tool_requirements(self) -> dict[str, list[str]]:
        """Nodes that must come before a node whatever its kind (banking: a discoverable tool's unlock)."""
        required = getattr(self._template.tools, "tool_requirements", None)
        return required() if required else {}

    def node_schemas(self) -> list[dict[str, Any]]:
        """Schemas of the tools behind the domain's gateways (banking's discoverable tools); empty elsewhere."""
        schemas = getattr(self._template.tools, "discoverable_tool_schemas", None)
        return schemas() if schemas else []

    def user_tool_kinds(self) -> dict[str, str]:
        """Read/write annotation of the user's own tools (telecom's phone); empty in other domains."""
        from tau2.environment.toolkit import get_tool_types

        if self._template.user_tools is None:
            return {}
        return {name: kind.value for name, kind in get_tool_types(self._template.user_tools).items()}

    def tool_outputs(self) -> dict[str, list[str]]:
        """Field names each agent tool returns (from its return-type schema), plus entity ids its return
        description names (``"The user id if found"`` names ``user_id``)."""
        from tau2.environment.toolkit import get_tool_signatures

        return {
            name: sorted(_schema_field_names(signature.returns or {}))
            for name, signature in get_tool_signatures(self._template.tools).items()
        }

    def policy(self) -> str:
        return self._template.get_policy()

    def tasks(self, split: str = "test") -> list[Task]:
        return load_tasks(self.domain, split)

    @property
    def task(self) -> Task:
        """The task of the current (or last) episode."""
        return self._require_episode().task

    # ---- episode -------------------------------------------------------------------------------
    def reset(self, task: Task) -> list[Event]:
        env = make_environment(self.domain)
        initial = task.initial_state
        history = list(initial.message_history or []) if initial is not None else []
        env.set_state(
            initialization_data=initial.initialization_data if initial is not None else None,
            initialization_actions=initial.initialization_actions if initial is not None else None,
            message_history=history,
        )
        self._episode = _Episode(task=task, env=env, messages=history)
        from tau2.data_model.message import UserMessage

        opening = self.user.start(task, self._device)
        self._episode.messages.append(UserMessage(role="user", content=opening))
        return [
            Event(payload=SystemPayload(text=SYSTEM_PREFACE + env.get_policy()), actor="system"),
            Event(payload=UserPayload(text=opening), actor="user"),
        ]

    def step(self, action: Event) -> StepResult:
        episode = self._require_episode()
        if episode.done:
            raise EpisodeDone(f"task {episode.task.id} already ended")
        episode.steps += 1
        termination = None
        if action.kind == EventKind.TOOL_CALL:
            observations = [self._run_tool(episode, action)]
            if observations[0].payload.is_error:
                episode.errors += 1
        elif action.kind == EventKind.TEXT:
            observations, termination = self._talk(episode, action.payload.text)
        else:
            episode.errors += 1
            observations = [
                Event(
                    payload=ErrorPayload(source="harness", message=f"cannot act with a {action.kind} event"),
                    actor="env",
                )
            ]
        if termination is None and episode.errors >= self.max_errors:
            termination = "error"
        if termination is None and episode.steps >= self.max_steps:
            termination = "max_steps"
        for event in observations:
            event.step = action.step
        if termination is None:
            return StepResult(observations=observations)
        return self._finish(episode, observations, termination)

    def snapshot(self) -> Any:
        episode = self._require_episode()
        env = episode.env
        return {
            "db": copy.deepcopy(env.tools.db),
            "user_db": copy.deepcopy(env.user_tools.db) if env.user_tools is not None else None,
            "episode": copy.copy(episode),
            "messages": list(episode.messages),
            "user_tool_calls": list(episode.user_tool_calls),
        }

    def restore(self, snapshot: Any) -> None:
        episode = copy.copy(snapshot["episode"])
        episode.messages = list(snapshot["messages"])
        episode.user_tool_calls = list(snapshot["user_tool_calls"])
        episode.env.tools.db = copy.deepcopy(snapshot["db"])
        if snapshot["user_db"] is not None:
            episode.env.user_tools.db = copy.deepcopy(snapshot["user_db"])
        episode.env.sync_tools()
        self._episode = episode

    def close(self, termination: str = "max_steps") -> StepResult:
        """End the episode now, without an action (its agent ran out of turns first), and score it."""
        episode = self._require_episode()
        if episode.done:
            raise EpisodeDone(f"task {episode.task.id} already ended")
        return self._finish(episode, [], termination)

    # ---- internals -----------------------------------------------------------------------------
    def _require_episode(self) -> _Episode:
        if self._episode is None:
            raise RuntimeError("call reset(task) before step()")
        return self._episode

    def _run_tool(self, episode: _Episode, action: Event) -> Event:
        from tau2.data_model.message import AssistantMessage, ToolCall

        payload = action.payload
        tool_call = ToolCall(id=payload.call_id, name=payload.name, arguments=payload.arguments)
        response = episode.env.get_response(tool_call)
        episode.messages += [AssistantMessage(role="assistant", tool_calls=[tool_call]), response]
        return Event(
            payload=ToolResultPayload(
                call_id=payload.call_id,
                name=payload.name,
                content=response.content or "",
                is_error=response.error,
            ),
            actor="tool",
        )

    def _talk(self, episode: _Episode, text: str) -> tuple[list[Event], str | None]:
        from tau2.data_model.message import AssistantMessage, UserMessage

        episode.messages.append(AssistantMessage(role="assistant", content=text))
        if STOP_TOKEN in text:
            return [], "agent_stop"
        try:
            reply = self.user.respond(text)
        except Exception as error:  # a broken user simulator ends the episode, it does not crash the run
            message = f"user simulator failed: {type(error).__name__}: {error}"
            return [Event(payload=ErrorPayload(source="user", message=message), actor="user")], "error"
        episode.messages.append(UserMessage(role="user", content=reply.text))
        return [
            Event(payload=UserPayload(text=reply.text), actor="user")
        ], "user_stop" if reply.stop else None

    def _finish(self, episode: _Episode, observations: list[Event], termination: str) -> StepResult:
        episode.done = True
        reward_info = evaluate_episode(self.domain, episode.task, episode.messages, termination)
        info = {
            "termination_reason": termination,
            "reward_info": reward_info,
            "steps": episode.steps,
            "user_tool_calls": json.loads(json.dumps(episode.user_tool_calls, default=str)),
        }
        return StepResult(
            observations=observations, done=True, reward=float(reward_info["reward"]), info=info
        )


def _schema_field_names(schema: dict[str, Any]) -> set[str]:
    """Every property name in a JSON schema (nested models included), plus ``<entity>_id`` for each
    ``"<entity> id"`` phrase in a description."""
    names: set[str] = set()
    stack: list[Any] = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            names.update(node.get("properties", {}).keys())
            description = node.get("description")
            if isinstance(description, str):
                words = description.lower().replace(",", " ").replace(".", " ").split()
                names.update(f"{a}_id" for a, b in zip(words, words[1:], strict=False) if b == "id")
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    names.discard("returns")
    return names
