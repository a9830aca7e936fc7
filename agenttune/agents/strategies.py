"""Agent strategies: how the conversation for each turn is built and when an episode ends.

Every strategy has the same interface, used unchanged by evaluation episodes and RL rollouts
(:func:`agenttune.agents.episode.run_episodes`):

* ``init(task, opening)`` starts the episode state from the harness's opening events;
* ``propose(state)`` returns the conversation to send to the engine for the next turn;
* ``handle(state, action)`` may answer an action itself (a plan, a memory tool) instead of the harness;
* ``observe(state, assistant, outcome)`` records the turn and decides whether the episode goes on;
* ``is_done(state)``.

Conversations only grow, turn after turn, so a full log's token ids stay exactly what the policy saw. Prompts a
strategy adds are USER events with actor ``"strategy"``; memory operations are MEMORY_OP events.
Constructors take exactly the fields of :class:`agenttune.config.StrategyConfig` (``_target_`` aside).
"""

from __future__ import annotations

from typing import Any

from agenttune.agents.state import AGENT_STOP, HARNESS_DONE, MAX_TURNS, EpisodeState, TurnOutcome
from agenttune.events.projections.messages import Message, events_to_messages
from agenttune.events.schema import (
    Event,
    EventKind,
    MemoryOpPayload,
    ToolResultPayload,
    UserPayload,
    replace,
)
from agenttune.harness.protocol import StepResult


def strategy_prompt(text: str) -> Event:
    return Event(payload=UserPayload(text=text), actor="strategy")


class ReAct:
    """Reason and act in one growing conversation: tool calls until an answer, the harness ending it, or
    ``max_turns``. The base of the other strategies."""

    def __init__(
        self, name: str = "react", max_turns: int = 6, memory_size: int = 8, max_reflections: int = 2
    ) -> None:
        self.name = name
        self.max_turns = max_turns
        self.memory_size = memory_size
        self.max_reflections = max_reflections

    def tools(self, harness_tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The tool schemas offered to the policy."""
        return list(harness_tools)

    def init(self, task: Any, opening: list[Event]) -> EpisodeState:
        return EpisodeState(task=task, messages=events_to_messages(opening))

    def propose(self, state: EpisodeState) -> list[Message]:
        return list(state.messages)

    def handle(self, state: EpisodeState, action: Event) -> StepResult | None:
        """Answer ``action`` without the harness, or None to send it to the harness."""
        return None

    def observe(self, state: EpisodeState, assistant: Message, outcome: TurnOutcome) -> None:
        state.messages.append(assistant)
        state.messages.extend(events_to_messages(outcome.observations))
        state.turn += 1
        state.termination = outcome.reason or (MAX_TURNS if state.turn >= self.max_turns else None)

    def restart(self, state: EpisodeState, opening: list[Event]) -> None:
        """Start a new attempt after the loop reset the harness (strategies that set ``reset_requested``)."""
        raise NotImplementedError(f"{type(self).__name__} never asks for a harness reset")

    def is_done(self, state: EpisodeState) -> bool:
        return state.termination is not None


class PlanExecute(ReAct):
    """First a plan (answered by the strategy, not the harness), then ReAct-style execution of it."""

    PLAN = "Before acting, write a short numbered plan for this task. Do not call any tool yet."
    EXECUTE = "Now carry out your plan step by step, calling tools as needed, then give the final answer."

    def init(self, task: Any, opening: list[Event]) -> EpisodeState:
        state = super().init(task, opening)
        state.scratch["phase"] = "plan"
        state.emit(strategy_prompt(self.PLAN))
        return state

    def handle(self, state: EpisodeState, action: Event) -> StepResult | None:
        if state.scratch["phase"] != "plan":
            return None
        state.scratch["phase"] = "execute"
        if action.kind != EventKind.TEXT:  # it acted at once: no separate plan
            return None
        state.scratch["plan"] = action.payload.text
        return StepResult(observations=[replace(strategy_prompt(self.EXECUTE), step=state.step)])


class Reflexion(ReAct):
    """ReAct with retries: when the harness scores an attempt below 1.0, reset the harness, ask the policy to
    reflect on the failure and try again (at most ``max_reflections`` times). The attempts stay in one
    conversation; each reflection is written to memory (MEMORY_OP)."""

    SUCCESS = 1.0
    RETRY = (
        "Your previous attempt failed (reward {reward:g}). First reflect in a few sentences on what went wrong "
        "and what to do differently, then try again.\n\n{task}"
    )

    def observe(self, state: EpisodeState, assistant: Message, outcome: TurnOutcome) -> None:
        super().observe(state, assistant, outcome)
        reflections: list[str] = state.scratch.setdefault("reflections", [])
        if state.scratch.pop("reflecting", False):
            reflections.append(assistant["content"])
            key = f"reflection_{len(reflections)}"
            state.emit(Event(payload=MemoryOpPayload(op="write", key=key, value=assistant["content"])))
        failed = outcome.done and outcome.reward is not None and outcome.reward < self.SUCCESS
        ended_attempt = state.termination in (AGENT_STOP, HARNESS_DONE)
        if ended_attempt and failed and state.scratch.get("retries", 0) < self.max_reflections:
            state.termination = None
            state.reset_requested = True
            state.scratch["last_reward"] = outcome.reward

    def restart(self, state: EpisodeState, opening: list[Event]) -> None:
        state.reset_requested = False
        state.turn = 0
        state.scratch["retries"] = state.scratch.get("retries", 0) + 1
        state.scratch["reflecting"] = True
        task = "\n\n".join(e.payload.text for e in opening if e.kind == EventKind.USER)
        state.emit(strategy_prompt(self.RETRY.format(reward=state.scratch["last_reward"], task=task)))


class MemoryReAct(ReAct):
    """ReAct with a bounded key-value memory the policy reads and writes through two tools the strategy answers
    itself. At most ``memory_size`` entries are kept (the oldest is deleted first); every write, read and
    deletion is a MEMORY_OP event."""

    WRITE, READ = "memory_write", "memory_read"
    TOOL_SCHEMAS = [
        {
            "type": "function",
            "function": {
                "name": WRITE,
                "description": "Save a short note to memory under a key (oldest notes are forgotten first).",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "key": {"type": "string", "description": "A short name for the note."},
                        "value": {"type": "string", "description": "The note."},
                    },
                    "required": ["key", "value"],
                },
            },
        },
        {
            "type": "function",
            "function": {
                "name": READ,
                "description": "Read the note saved under a key, or every note when the key is empty.",
                "parameters": {
                    "type": "object",
                    "properties": {"key": {"type": "string", "description": "The note's key, or empty."}},
                    "required": [],
                },
            },
        },
    ]

    def tools(self, harness_tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [*harness_tools, *self.TOOL_SCHEMAS]

    def handle(self, state: EpisodeState, action: Event) -> StepResult | None:
        payload = action.payload
        if action.kind != EventKind.TOOL_CALL or payload.name not in (self.WRITE, self.READ):
            return None
        memory: dict[str, str] = state.scratch.setdefault("memory", {})
        arguments = payload.arguments
        if not all(isinstance(v, str) for v in arguments.values()):
            return self._answer(action, "memory arguments must be strings", is_error=True)
        if payload.name == self.WRITE:
            if "key" not in arguments or "value" not in arguments:
                return self._answer(action, "memory_write needs 'key' and 'value'", is_error=True)
            memory.pop(arguments["key"], None)
            memory[arguments["key"]] = arguments["value"]
            state.emit(
                Event(payload=MemoryOpPayload(op="write", key=arguments["key"], value=arguments["value"]))
            )
            while len(memory) > self.memory_size:
                oldest = next(iter(memory))
                state.emit(Event(payload=MemoryOpPayload(op="delete", key=oldest, value=memory.pop(oldest))))
            return self._answer(action, "Saved.")
        key = arguments.get("key", "")
        if key:
            value = memory.get(key, "")
            text = value or f"No note under {key!r}."
        else:
            value = text = "\n".join(f"{k}: {v}" for k, v in memory.items()) or "Memory is empty."
        state.emit(Event(payload=MemoryOpPayload(op="read", key=key or "*", value=value)))
        return self._answer(action, text)

    @staticmethod
    def _answer(action: Event, content: str, is_error: bool = False) -> StepResult:
        payload = action.payload
        result = ToolResultPayload(
            call_id=payload.call_id, name=payload.name, content=content, is_error=is_error
        )
        return StepResult(observations=[Event(payload=result, actor="tool", step=action.step)])
