"""Question generators: callables that turn a path into a question and its answer.

A generator is any ``Callable[[Path, EvidenceGraph], GeneratedQuestion | None]``. The
:class:`TemplateGenerator` (deterministic, the CPU default) fills a question pattern per relation
sequence; :class:`LLMQuestionGenerator` asks a chat engine to word the question and keeps the path's end
node as the answer, so every check below applies to both.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from agenttune.rag.synthesis.graph import EvidenceGraph
from agenttune.rag.synthesis.paths import Path


@dataclass(frozen=True)
class PathTemplate:
    """A relation sequence from a start node type and the question it asks; ``{start}`` is the start's label."""

    name: str
    start_type: str
    relations: tuple[str, ...]
    question: str


@dataclass(frozen=True)
class GeneratedQuestion:
    question: str
    answer: str
    answer_aliases: tuple[str, ...] = ()
    template: str = ""


QuestionGenerator = Callable[[Path, EvidenceGraph], GeneratedQuestion | None]


class TemplateGenerator:
    """Fill the template whose relation sequence matches the path; None when no template matches."""

    def __init__(self, templates: Sequence[PathTemplate]) -> None:
        self.by_relations = {t.relations: t for t in templates}

    def __call__(self, path: Path, graph: EvidenceGraph) -> GeneratedQuestion | None:
        template = self.by_relations.get(path.relations)
        if template is None:
            return None
        end = graph.nodes[path.end]
        question = template.question.format(start=graph.nodes[path.start].label)
        return GeneratedQuestion(question, end.label, end.aliases, template.name)


class ChatEngine(Protocol):
    """What :class:`LLMQuestionGenerator` needs of an engine (``agenttune.engines.base.Engine`` fits)."""

    def generate(self, conversations: list[list[dict[str, Any]]]) -> list[Any]: ...


def describe_path(path: Path, graph: EvidenceGraph) -> str:
    """The path as numbered facts: ``1. Acme Inc. (party) --party_to--> Supply Agreement (contract)``."""
    lines = []
    for i, edge in enumerate(path.edges, start=1):
        src, dst = graph.nodes[edge.src], graph.nodes[edge.dst]
        lines.append(f"{i}. {src.label} ({src.type}) --{edge.relation}--> {dst.label} ({dst.type})")
    return "\n".join(lines)


class LLMQuestionGenerator:
    """Ask an engine to word a question over the path; the answer stays the path's end node.

    ``engine.generate([conversation])`` must return one generation (an object with ``text``, or a string)
    whose text contains a JSON object with a ``question`` field; any other reply gives None (path dropped).
    """

    SYSTEM = (
        "You write one question for a contract-search benchmark. The question must name only the first "
        "entity of the chain, must need every step of the chain to answer, and must not contain the answer. "
        'Reply with JSON: {"question": "..."}'
    )

    def __init__(self, engine: ChatEngine) -> None:
        self.engine = engine

    def __call__(self, path: Path, graph: EvidenceGraph) -> GeneratedQuestion | None:
        end = graph.nodes[path.end]
        prompt = f"Chain of facts:\n{describe_path(path, graph)}\n\nThe answer is: {end.label}"
        conversation = [{"role": "system", "content": self.SYSTEM}, {"role": "user", "content": prompt}]
        reply = self.engine.generate([conversation])[0]
        if getattr(reply, "error", ""):  # an engine failure, not a reply without a question
            raise RuntimeError(f"the question generator's engine failed: {reply.error}")
        text = reply if isinstance(reply, str) else getattr(reply, "text", "")
        match = re.search(r"\{.*\}", text or "", re.DOTALL)
        try:
            question = json.loads(match.group(0))["question"].strip() if match else ""
        except (json.JSONDecodeError, KeyError, AttributeError):
            return None
        return GeneratedQuestion(question, end.label, end.aliases, "llm") if question else None
