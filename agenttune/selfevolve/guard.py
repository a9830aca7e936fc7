"""ToolGraphHarness: the harness-side ToolGraph mechanisms (planning prompt, pre-act gate, loop check).

It wraps any harness. ``reset`` appends the planning prompt to the SYSTEM event (so the EventLog records
the exact system prompt the agent saw; DPO pairs reuse it). ``step`` answers a blocked TOOL_CALL with a
TOOL_RESULT (``is_error=True``, content starting with
:data:`agenttune.harness.protocol.BLOCKED_PREFIX`) instead of running it:

- pre-act gate: a write whose prerequisite reads were not done earlier in the episode;
- loop check: the ``loop_limit``-th identical call (same tool and arguments).

A call is blocked at most once: sent again unchanged, it runs (the gate advises, it does not trap the
agent, and the wrapped harness's step budget still ends a loop).
"""

from __future__ import annotations

from typing import Any

from agenttune.events.schema import Event, EventKind, SystemPayload, ToolResultPayload, replace
from agenttune.harness.protocol import BLOCKED_PREFIX, Harness, StepResult
from agenttune.selfevolve.config import ToolGraphConfig
from agenttune.selfevolve.toolgraph import ToolGraph, call_key


def toolgraph_system_prompt(base: str, graph: ToolGraph, config: ToolGraphConfig) -> str:
    """The system prompt used at inference: ``base`` plus the planning prompt when that switch is on."""
    if not config.planning_prompt:
        return base
    return f"{base}\n\n{graph.planning_prompt(use_rules=config.domain_rules)}"


class ToolGraphHarness:
    """A harness wrapper applying the planning prompt, the pre-act gate and the loop check."""

    def __init__(self, harness: Harness, graph: ToolGraph, config: ToolGraphConfig | None = None) -> None:
        self.inner = harness
        self.graph = graph
        self.config = config or ToolGraphConfig()
        self.history: list[Event] = []
        self._blocked: set[str] = set()
        self.blocks: list[dict[str, Any]] = []  # every gate or loop message of the episode, for analysis

    def __getattr__(self, name: str) -> Any:  # domain, max_steps, tool_kinds, ... of the wrapped harness
        if name == "inner":  # not set yet (e.g. while unpickling): do not recurse
            raise AttributeError(name)
        return getattr(self.inner, name)

    def capabilities(self) -> frozenset[str]:
        return self.inner.capabilities()

    def tool_schemas(self) -> list[dict[str, Any]]:
        return self.inner.tool_schemas()

    def reset(self, task: Any) -> list[Event]:
        events = self.inner.reset(task)
        events = [
            replace(
                e,
                payload=SystemPayload(text=toolgraph_system_prompt(e.payload.text, self.graph, self.config)),
            )
            if e.kind == EventKind.SYSTEM
            else e
            for e in events
        ]
        self.history = list(events)
        self._blocked = set()
        self.blocks = []
        return events

    def step(self, action: Event) -> StepResult:
        message = self.check(action)
        if message is not None:
            self._blocked.add(call_key(action))
            self.blocks.append({"step": action.step, "tool": action.payload.name, "message": message})
            result = StepResult(
                observations=[
                    Event(
                        payload=ToolResultPayload(
                            call_id=action.payload.call_id,
                            name=action.payload.name,
                            content=message,
                            is_error=True,
                        ),
                        actor="env",
                        step=action.step,
                    )
                ]
            )
        else:
            result = self.inner.step(action)
        self.history += [action, *result.observations]
        return result

    def check(self, action: Event) -> str | None:
        """The gate or loop message for ``action``, or None when it may run."""
        if action.kind != EventKind.TOOL_CALL or call_key(action) in self._blocked:
            return None
        name = action.payload.name
        if self.config.loop_check and self.graph.repeats(action, self.history) >= self.config.loop_limit - 1:
            return (
                f"{BLOCKED_PREFIX} loop: {name} was already called {self.config.loop_limit - 1} times with these "
                "arguments. Use the result you have, or do something else."
            )
        if self.config.pre_act_gate:
            node = self.graph.node(action)
            missing = self.graph.missing_prerequisites(node, self.history, use_rules=self.config.domain_rules)
            if missing:
                needs = "; and ".join(" or ".join(sorted(group)) for group in missing)
                return f"{BLOCKED_PREFIX} gate: {node} needs earlier steps; first call {needs}."
        return None

    def snapshot(self) -> Any:
        return {"inner": self.inner.snapshot(), "history": list(self.history), "blocked": set(self._blocked)}

    def restore(self, snapshot: Any) -> None:
        self.inner.restore(snapshot["inner"])
        self.history = list(snapshot["history"])
        self._blocked = set(snapshot["blocked"])
