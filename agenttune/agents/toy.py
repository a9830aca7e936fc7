"""A deterministic calculator harness, its tasks and a scripted policy that solves them (tests, benchmarks, demos)."""

from __future__ import annotations

from typing import Any

from agenttune.events.schema import Event, EventKind, SystemPayload, ToolResultPayload, UserPayload
from agenttune.harness.protocol import EpisodeDone, StepResult

ADD_SCHEMA = {
    "type": "function",
    "function": {
        "name": "add",
        "description": "Add two integers.",
        "parameters": {
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
        },
    },
}


class CalculatorHarness:
    """Tool ``add``; a text action is the answer, scored 1.0 when it contains ``task["answer"]``.

    ``chat=True`` makes text actions get a user reply instead (the episode never ends by itself);
    ``fail_on_call`` raises from ``step`` on tool calls.
    """

    def __init__(self, chat: bool = False, fail_on_call: bool = False) -> None:
        self.chat, self.fail_on_call = chat, fail_on_call
        self.actions: list[Event] = []
        self.resets = 0
        self.done = False

    def capabilities(self) -> frozenset[str]:
        return frozenset()

    def tool_schemas(self) -> list[dict[str, Any]]:
        return [ADD_SCHEMA]

    def reset(self, task: dict[str, Any]) -> list[Event]:
        self.task, self.done = task, False
        self.resets += 1
        return [
            Event(payload=SystemPayload(text="You are a careful calculator."), actor="system"),
            Event(payload=UserPayload(text=task["question"]), actor="user"),
        ]

    def step(self, action: Event) -> StepResult:
        if self.done:
            raise EpisodeDone("episode over")
        self.actions.append(action)
        payload = action.payload
        if payload.kind == EventKind.TOOL_CALL:
            if self.fail_on_call:
                raise RuntimeError("calculator exploded")
            total = payload.arguments.get("a", 0) + payload.arguments.get("b", 0)
            result = ToolResultPayload(call_id=payload.call_id, name=payload.name, content=str(total))
            return StepResult([Event(payload=result, actor="tool", step=action.step)])
        if self.chat:
            return StepResult([Event(payload=UserPayload(text="Go on."), actor="user", step=action.step)])
        self.done = True
        reward = 1.0 if self.task["answer"] in payload.text else 0.0
        return StepResult([], done=True, reward=reward, info={"answer": payload.text})

    def snapshot(self) -> Any:
        raise NotImplementedError

    def restore(self, snapshot: Any) -> None:
        raise NotImplementedError


def tasks(n: int) -> list[dict[str, Any]]:
    return [
        {"id": f"t{i}", "question": f"What is {i} + {i + 1}?", "answer": str(2 * i + 1)} for i in range(n)
    ]


def calculator_policy(conversation: list[dict[str, Any]], tools: Any) -> dict[str, Any]:
    """Call ``add`` once, then answer with the tool's result (or ``wrong`` when told so by the task)."""
    last = conversation[-1]
    if last["role"] == "tool":
        return {"content": f"The answer is {last['content']}."}
    question = next(m["content"] for m in conversation if m["role"] == "user")
    a, b = (int(x.strip("?")) for x in question.split()[2::2])
    return {
        "content": "Let me add.",
        "tool_calls": [{"function": {"name": "add", "arguments": {"a": a, "b": b}}}],
    }
