"""Checks a synthesized question must pass: a unique answer, every hop needed, retrieval needed.

- unique: following the path's relations from its start reaches only the answer node;
- every hop needed: for each hop, drop all chunks stating that hop's edge; following the relations must
  then fail to reach the answer (otherwise another route makes the hop decorative);
- retrieval needed: the answer is not written in the question, and a closed-book baseline (by default the
  most common answer of the same template) does not get it right.
"""

from __future__ import annotations

from collections.abc import Callable

from agenttune.rag.synthesis.graph import EvidenceGraph
from agenttune.rag.synthesis.paths import Path, follow
from agenttune.rewards.answer import exact_match, normalize_answer

ClosedBook = Callable[[str], str]


def has_unique_answer(graph: EvidenceGraph, path: Path) -> bool:
    return follow(graph, path.start, path.relations) == {path.end}


def unnecessary_hops(graph: EvidenceGraph, path: Path) -> list[int]:
    """Indices of hops whose evidence can be dropped while the answer stays reachable (empty: all needed)."""
    return [
        i
        for i, edge in enumerate(path.edges)
        if path.end in follow(graph, path.start, path.relations, removed=edge.evidence)
    ]


def answer_in_question(question: str, answer: str) -> bool:
    """Whether the normalised answer occurs in the normalised question."""
    return f" {normalize_answer(answer)} " in f" {normalize_answer(question)} "


def needs_retrieval(question: str, answer: str, closed_book: ClosedBook | None = None) -> bool:
    """False when the answer is in the question or ``closed_book(question)`` matches it."""
    if answer_in_question(question, answer):
        return False
    return closed_book is None or not exact_match(closed_book(question), answer)
