"""Simulated users for tau2 tasks: a deterministic scripted user and an LLM user played by any engine.

A user opens the conversation (``start``) and answers each agent message (``respond``). In telecom the
user also owns a phone: ``device`` runs the domain's user tools (toggle airplane mode, reboot, ...) against
the real environment and records the calls in the trajectory tau2's evaluators score.

A reply whose text contains ``###STOP###`` (tau2's stop signal) ends the episode with ``user_stop``.

``harness.user=llm`` selects :class:`LLMUser`; :func:`user_model_config` says which model plays it
(``harness.user_model``: an OpenAI-compatible endpoint, or a local model through the transformers or vLLM engine).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from omegaconf import DictConfig, OmegaConf

from agenttune.benchmarks.tau2.domains import STOP_TOKEN
from agenttune.config import ModelConfig

if TYPE_CHECKING:
    from tau2.data_model.tasks import Task

AGENT_GREETING = "Hi! How can I help you today?"
# phrases that mark an agent message as its closing one ("Is there anything else I can help you with?")
CLOSING_MARKERS = ("anything else", "is there anything", "have a great day", "goodbye")


class UserDevice(Protocol):
    """The user's side of the environment, provided by the harness."""

    def tool_schemas(self) -> list[dict[str, Any]]:
        """OpenAI-style schemas of the user's tools (empty outside telecom)."""

    def call(self, name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        """Run a user tool; returns (content, is_error) and records the call in the trajectory."""


@dataclass
class UserReply:
    text: str
    stop: bool = False


class User(Protocol):
    def start(self, task: Task, device: UserDevice) -> str:
        """Begin a new conversation about ``task``; returns the user's first message."""

    def respond(self, agent_text: str) -> UserReply:
        """Answer one agent message."""


def scenario_text(task: Task) -> str:
    """What the user knows and wants, from the task's user scenario."""
    instructions = task.user_scenario.instructions
    if isinstance(instructions, str):
        return instructions
    parts = [instructions.reason_for_call, instructions.known_info, instructions.task_instructions]
    return "\n".join(part.strip() for part in parts if part)


class ScriptedUser:
    """A deterministic user: states its scenario, does what it is asked on its device, then stops.

    - ``start`` returns the scenario (reason for the call, known information, instructions).
    - An agent message that names user tools in the form ``tool_name({...json arguments...})`` (or
      ``tool_name()``) makes the user run each of them, in order, and report the results.
    - Any other message is the agent's final word when it contains one of ``done_markers`` or when the
      user has already answered ``max_replies`` such messages: the user answers ``###STOP###``.
      Otherwise the user repeats what it knows (it has nothing else to say).
    """

    def __init__(
        self,
        done_markers: tuple[str, ...] = CLOSING_MARKERS,
        max_replies: int = 1,
    ) -> None:
        self.done_markers = done_markers
        self.max_replies = max_replies
        self._scenario = ""
        self._device: UserDevice | None = None
        self._tool_names: list[str] = []
        self._replies = 0

    def start(self, task: Task, device: UserDevice) -> str:
        self._scenario = scenario_text(task)
        self._device = device
        self._tool_names = [schema["function"]["name"] for schema in device.tool_schemas()]
        self._replies = 0
        return self._scenario

    def respond(self, agent_text: str) -> UserReply:
        requests = self._requested_tool_calls(agent_text)
        if requests and self._device is not None:
            reports = []
            for name, arguments in requests:
                content, is_error = self._device.call(name, arguments)
                reports.append(f"{name}: {'failed: ' if is_error else ''}{content}")
            return UserReply("I did that. " + " | ".join(reports))
        lowered = agent_text.lower()
        if any(marker in lowered for marker in self.done_markers) or self._replies >= self.max_replies:
            return UserReply(STOP_TOKEN, stop=True)
        self._replies += 1
        return UserReply(self._scenario)

    def _requested_tool_calls(self, text: str) -> list[tuple[str, dict[str, Any]]]:
        calls = []
        for match in re.finditer(r"\b([a-z_]+)\((\{.*?\})?\)", text):
            name, raw_arguments = match.group(1), match.group(2)
            if name not in self._tool_names:
                continue
            try:
                arguments = json.loads(raw_arguments) if raw_arguments else {}
            except (ValueError, RecursionError):  # not JSON, over 4,300 digits, too deep
                arguments = {}
            calls.append((name, arguments))
        return calls


USER_SIMULATOR_PROMPT = """You are a customer talking to a customer-service agent. Play the customer described below.
Say only what the customer would say, one message at a time, and never invent information you were not given.
When your issue is resolved or cannot be resolved, reply with exactly {stop}.
{tools_note}
{scenario}"""


class LLMUser:
    """A user simulated by any :class:`~agenttune.engines.base.Engine` (its generations parsed by the project's one
    tool-call parser).

    The engine sees the conversation from the customer's side (the agent's messages as ``user`` turns,
    its own as ``assistant`` turns). When it calls tools (telecom's phone tools are offered as ``tools``), they
    are run on the device and their results appended as ``tool`` messages before the engine is asked again, at
    most ``max_tool_rounds`` times per reply.
    """

    def __init__(self, engine: Any, max_tool_rounds: int = 4) -> None:
        self.engine = engine
        self.max_tool_rounds = max_tool_rounds
        self._conversation: list[dict[str, Any]] = []
        self._device: UserDevice | None = None

    def start(self, task: Task, device: UserDevice) -> str:
        self._device = device
        tools_note = (
            "You can act on your phone with the tools you are given." if device.tool_schemas() else ""
        )
        system = USER_SIMULATOR_PROMPT.format(
            stop=STOP_TOKEN, tools_note=tools_note, scenario=scenario_text(task)
        )
        self._conversation = [{"role": "system", "content": system}]
        return self.respond(AGENT_GREETING).text

    def respond(self, agent_text: str) -> UserReply:
        self._conversation.append({"role": "user", "content": agent_text})
        tools = self._device.tool_schemas() if self._device is not None else []
        for _ in range(self.max_tool_rounds + 1):
            generation = self.engine.generate([self._conversation], tools=tools or None)[0]
            if generation.error:  # the harness ends the episode with an error rather than send an empty reply
                raise RuntimeError(f"the user simulator's engine failed: {generation.error}")
            parsed = generation.parsed
            calls = parsed.tool_calls if self._device is not None else []
            ids = [f"user_call_{len(self._conversation)}_{i}" for i in range(len(calls))]
            self._conversation.append(parsed.to_message(ids))
            if not calls:
                break
            for call, call_id in zip(calls, ids, strict=True):
                content, _ = self._device.call(call.name, dict(call.arguments))
                self._conversation.append(
                    {"role": "tool", "content": content, "name": call.name, "tool_call_id": call_id}
                )
        text = (
            self._conversation[-1].get("content", "") if self._conversation[-1]["role"] == "assistant" else ""
        )
        return UserReply(text, stop=STOP_TOKEN in text)


def user_model_config(cfg: DictConfig) -> ModelConfig:
    """The LLM user's model: the ``model`` group's config with the non-empty fields of ``harness.user_model`` (its
    ``name`` is also the served model an ``openai`` engine asks for) and its sampling settings."""
    user = cfg.harness.user_model
    changes: dict[str, Any] = {
        key: user[key] for key in ("engine", "name", "path", "engine_url") if user[key]
    }
    if user.name:
        changes["engine_model"] = user.name
    changes |= {"max_new_tokens": user.max_new_tokens, "temperature": user.temperature}
    return OmegaConf.to_object(OmegaConf.merge(OmegaConf.structured(ModelConfig), cfg.model, changes))
