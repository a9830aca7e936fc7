"""ToolGraph: which tool's output feeds which tool's input, learned transition weights, and graph scores.

How edges are derived (no hand-written table):

1. Each tool *consumes* the entities named by its id-like parameters. A parameter ``x_id``, ``x_ids`` or
   ``x_number`` names entity ``x`` (``reservation_id`` -> ``reservation``, ``item_ids`` -> ``item``,
   ``phone_number`` -> ``phone``); a ``new_`` prefix is dropped (``new_item_ids`` -> ``item``).
2. Each tool *produces* the entities named by the fields of its return type (every property in its
   return schema, nested models included, read the same way, plus plurals: ``reservations`` ->
   ``reservation``, ``line_ids`` -> ``line``) and by "<entity> id" phrases in its return description
   (retail's ``find_user_id_by_email`` returns "The user id"). Only entities some tool consumes count.
3. There is an edge A -> B, labelled with the shared entities, when A produces an entity B consumes.
4. A write tool's *prerequisites*: for each entity it consumes that some read tool produces, one of those
   read tools must have been called earlier in the episode. Domain rules can add tools that must all
   have been called (``rules["prerequisites"][tool]``).
5. Gateways (banking's discoverable tools): a harness may name the graph node of a call (``tool_node``:
   ``call_discoverable_agent_tool(agent_tool_name=X)`` is node ``X``, unlocking X is ``unlock_...:X``), describe
   the tools behind its gateways (``node_schemas``) and require nodes before others whatever their kind
   (``tool_requirements``: X only after its unlock). Without them a call's node is its tool's name.

Read/write classification is tau2's own annotation of each tool (``ToolType`` read, write, think,
generic), passed in as ``kinds``.

Edge weights are transition probabilities between consecutive agent actions in successful episodes
(tool names, ``__text__`` for a message to the user, ``__start__``/``__end__``), with additive
smoothing whose prior counts schema edges double.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from agenttune.events.schema import Event, EventKind, EventLog
from agenttune.events.trajectory import call_key

START, END, TEXT = "__start__", "__end__", "__text__"
ID_SUFFIXES = ("_ids", "_id", "_number")


class DescribesTools(Protocol):
    def tool_schemas(self) -> list[dict[str, Any]]: ...
    def tool_kinds(self) -> dict[str, str]: ...
    def tool_outputs(self) -> dict[str, list[str]]: ...


def episode_reward(log: EventLog) -> float:
    """The episode's reward: the one the episode loop records from the harness (episode REWARD ``harness``)."""
    return float(log.rewards().get("harness", 0.0))


def user_fault_reason(log: EventLog) -> str:
    """Why the episode's failure is its simulated user's, not the agent's (the ``user_fault`` metadata a benchmark
    records, e.g. tau2's ``ended_early``), or ``""``: such an episode is no failure to learn from."""
    return str(log.metadata.get("user_fault") or "")


def entity_of(name: str) -> str | None:
    """The entity an id-like field names (``order_id`` -> ``order``), else None."""
    for suffix in ID_SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            stem = name[: -len(suffix)]
            return stem.removeprefix("new_")
    return None


def action_node(event: Event) -> str:
    """The graph node of an agent action: its tool name, or ``__text__`` for a message."""
    return event.payload.name if event.kind == EventKind.TOOL_CALL else TEXT


class ToolGraph:
    """Tools of one domain as a dependency graph, with transition weights fitted on successful episodes."""

    def __init__(
        self,
        kinds: dict[str, str],
        consumes: dict[str, set[str]],
        produces: dict[str, set[str]],
        rules: dict[str, Any] | None = None,
        node_of: Callable[[str, dict[str, Any]], str] | None = None,
        requires: dict[str, list[str]] | None = None,
    ) -> None:
        self.kinds = dict(kinds)
        self.consumes = consumes
        self.produces = produces
        self.rules = rules or {}
        self.node_of = node_of
        self.requires = requires or {}
        self.behind_gateways: set[str] = set()  # tools reached through a gateway: never named in the prompt
        self.edges: dict[tuple[str, str], set[str]] = {}
        for source, made in produces.items():
            for target, needed in consumes.items():
                if source != target and made & needed:
                    self.edges[(source, target)] = made & needed
        self.counts: Counter[tuple[str, str]] = Counter()
        self.smoothing = 1.0

    @classmethod
    def build(
        cls,
        schemas: Sequence[dict[str, Any]],
        kinds: dict[str, str],
        outputs: dict[str, Iterable[str]],
        rules: dict[str, Any] | None = None,
        node_of: Callable[[str, dict[str, Any]], str] | None = None,
        requires: dict[str, list[str]] | None = None,
    ) -> ToolGraph:
        """From OpenAI-style tool schemas, read/write kinds and the field names each tool returns."""
        consumes: dict[str, set[str]] = {}
        for schema in schemas:
            function = schema.get("function", schema)
            params = function.get("parameters", {}).get("properties", {})
            consumes[function["name"]] = {e for e in map(entity_of, params) if e}
        wanted = set().union(*consumes.values()) if consumes else set()
        produces = {}
        for name, fields in outputs.items():
            made = {entity_of(f) or f.removesuffix("s") for f in fields}
            produces[name] = made & wanted
        return cls(kinds, consumes, produces, rules, node_of, requires)

    @classmethod
    def from_harness(cls, harness: DescribesTools, rules: dict[str, Any] | None = None) -> ToolGraph:
        """From a harness that describes its tools (``Tau2Harness`` does), gateways included (item 5 above)."""
        schemas = harness.tool_schemas() + (
            harness.node_schemas() if hasattr(harness, "node_schemas") else []
        )
        requires = harness.tool_requirements() if hasattr(harness, "tool_requirements") else None
        node_of = getattr(harness, "tool_node", None)
        graph = cls.build(schemas, harness.tool_kinds(), harness.tool_outputs(), rules, node_of, requires)
        graph.behind_gateways = {s["function"]["name"] for s in schemas} - {
            s["function"]["name"] for s in harness.tool_schemas()
        }
        return graph

    def node(self, event: Event) -> str:
        """The graph node of an agent action (:func:`action_node`, through the harness's gateways)."""
        if event.kind == EventKind.TOOL_CALL and self.node_of is not None:
            return self.node_of(event.payload.name, event.payload.arguments)
        return action_node(event)

    # ---- structure -----------------------------------------------------------------------------
    def is_write(self, tool: str) -> bool:
        return self.kinds.get(tool) == "write"

    def readers_of(self, entity: str) -> set[str]:
        return {
            tool for tool, made in self.produces.items() if entity in made and self.kinds.get(tool) == "read"
        }

    def prerequisites(self, tool: str, use_rules: bool = True) -> list[set[str]]:
        """Groups of tools; one tool of each group must have run before ``tool`` (the harness's requirements
        for any tool, the schema's and the rules' for writes)."""
        structural = [{node} for node in self.requires.get(tool, [])]
        if not self.is_write(tool):
            return structural
        groups = structural + [
            readers for e in sorted(self.consumes.get(tool, ())) if (readers := self.readers_of(e))
        ]
        if use_rules:
            groups += [{required} for required in self.rules.get("prerequisites", {}).get(tool, [])]
        # a group that contains another is implied by it
        unique = [g for i, g in enumerate(groups) if g not in groups[:i]]
        return sorted((g for g in unique if not any(other < g for other in unique)), key=sorted)

    def missing_prerequisites(
        self, tool: str, history: Sequence[Event], use_rules: bool = True
    ) -> list[set[str]]:
        """Prerequisite groups of ``tool`` none of whose tools was called (successfully) in ``history``."""
        done = {self.node(e) for e in _successful_calls(history)}
        return [group for group in self.prerequisites(tool, use_rules) if not group & done]

    # ---- weights -------------------------------------------------------------------------------
    def fit(self, logs: Iterable[EventLog], min_reward: float = 1.0, smoothing: float = 1.0) -> ToolGraph:
        """Count action-to-action transitions in episodes whose reward is at least ``min_reward``."""
        self.smoothing = smoothing
        for log in logs:
            if episode_reward(log) < min_reward:
                continue
            nodes = [START] + [self.node(e) for e in log.events if _is_action(e)] + [END]
            self.counts.update(zip(nodes, nodes[1:], strict=False))
        return self

    def transition(self, source: str, target: str) -> float:
        """Smoothed P(target | source); a schema edge doubles the prior count."""
        nodes = [*self.kinds, TEXT, END]

        def prior(node: str) -> float:
            return self.smoothing * (2.0 if (source, node) in self.edges else 1.0)

        total = sum(self.counts[(source, node)] + prior(node) for node in nodes)
        return (self.counts[(source, target)] + prior(target)) / total

    # ---- decisions -----------------------------------------------------------------------------
    def repeats(self, candidate: Event, history: Sequence[Event]) -> int:
        """How many times this exact call (name and arguments) was already made in ``history``."""
        if candidate.kind != EventKind.TOOL_CALL:
            return 0
        key = call_key(candidate)
        return sum(
            1 for e in history if e.kind == EventKind.TOOL_CALL and e.actor == "agent" and call_key(e) == key
        )

    def score(self, candidate: Event, history: Sequence[Event], use_rules: bool = True) -> float:
        """Graph score of a candidate action: log transition probability from the last action, minus 2
        per unmet prerequisite group of a write, minus 3 per earlier identical call."""
        actions = [e for e in history if _is_action(e)]
        previous = self.node(actions[-1]) if actions else START
        node = self.node(candidate)
        value = math.log(self.transition(previous, node))
        if candidate.kind == EventKind.TOOL_CALL:
            value -= 2.0 * len(self.missing_prerequisites(node, history, use_rules))
            value -= 3.0 * self.repeats(candidate, history)
        return value

    def best(self, candidates: Sequence[Event], history: Sequence[Event], use_rules: bool = True) -> Event:
        """The highest-scoring candidate (the earliest among equals)."""
        if not candidates:
            raise ValueError("no candidates to choose from")
        scores = [self.score(c, history, use_rules) for c in candidates]
        return candidates[scores.index(max(scores))]

    # ---- prompt --------------------------------------------------------------------------------
    def planning_prompt(self, use_rules: bool = True, top_k: int = 2) -> str:
        """Text for the system prompt: read vs write tools, what to read before each write, likely next
        steps (when fitted), and the domain's rule notes."""
        shown = {t: k for t, k in self.kinds.items() if t not in self.behind_gateways}
        reads = sorted(t for t, k in shown.items() if k == "read")
        writes = sorted(t for t, k in shown.items() if k == "write")
        lines = [
            "## Tool plan",
            f"Read tools (look things up; no side effects): {', '.join(reads) or 'none'}.",
            f"Write tools (change records; use only once the user has confirmed): {', '.join(writes) or 'none'}.",
        ]
        needs = []
        for tool in writes:
            groups = self.prerequisites(tool, use_rules)
            if groups:
                needs.append(f"- {tool}: first call " + "; and ".join(" or ".join(sorted(g)) for g in groups))
        if needs:
            lines += ["Before each write, read what it acts on:", *needs]
        if self.counts:
            nexts = []
            for tool in sorted(shown):
                ranked = sorted(shown, key=lambda t, s=tool: -self.counts[(s, t)])[:top_k]
                ranked = [t for t in ranked if self.counts[(tool, t)]]
                if ranked:
                    nexts.append(f"- after {tool}: usually {', '.join(ranked)}")
            if nexts:
                lines += ["Usual next steps in successful conversations:", *nexts]
        if use_rules and self.rules.get("notes"):
            lines += ["Domain rules:", *(f"- {note}" for note in self.rules["notes"])]
        lines.append("Never repeat a call with the same arguments; use the result you already have.")
        return "\n".join(lines)


def _is_action(event: Event) -> bool:
    return event.actor == "agent" and event.kind in (EventKind.TOOL_CALL, EventKind.TEXT)


def _successful_calls(history: Sequence[Event]) -> list[Event]:
    failed = {e.payload.call_id for e in history if e.kind == EventKind.TOOL_RESULT and e.payload.is_error}
    return [
        e
        for e in history
        if e.kind == EventKind.TOOL_CALL and e.actor == "agent" and e.payload.call_id not in failed
    ]
