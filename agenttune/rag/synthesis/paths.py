"""Paths through an :class:`EvidenceGraph`: following a relation sequence, and sampling concrete paths.

A path never revisits a node, so ``party --party_to--> contract --has_party--> party`` reaches the
*other* party. :func:`follow` returns every end node a relation sequence reaches from a start node, which
is what both the uniqueness check and the hop-necessity check are built on.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from agenttune.rag.synthesis.graph import Edge, EvidenceGraph


@dataclass(frozen=True)
class Path:
    """A start node and the edges walked from it; ``hops`` is the number of edges."""

    start: str
    edges: tuple[Edge, ...]

    @property
    def hops(self) -> int:
        return len(self.edges)

    @property
    def end(self) -> str:
        return self.edges[-1].dst if self.edges else self.start

    @property
    def relations(self) -> tuple[str, ...]:
        return tuple(e.relation for e in self.edges)

    @property
    def node_ids(self) -> list[str]:
        return [self.start, *(e.dst for e in self.edges)]


def walks(
    graph: EvidenceGraph, start: str, relations: Sequence[str], removed: frozenset[str] = frozenset()
) -> list[Path]:
    """Every node-simple path from ``start`` following ``relations``, ignoring chunks in ``removed``."""
    frontier = [Path(start, ())]
    for relation in relations:
        frontier = [
            Path(path.start, (*path.edges, edge))
            for path in frontier
            for edge in graph.edges(path.end, relation, removed)
            if edge.dst not in path.node_ids
        ]
    return frontier


def follow(
    graph: EvidenceGraph, start: str, relations: Sequence[str], removed: frozenset[str] = frozenset()
) -> set[str]:
    """The end nodes reachable from ``start`` by ``relations`` without the ``removed`` chunks."""
    return {path.end for path in walks(graph, start, relations, removed)}


def sample_paths(
    graph: EvidenceGraph,
    start_type: str,
    relations: Sequence[str],
    max_paths: int | None = None,
    seed: int = 0,
) -> list[Path]:
    """Concrete paths following ``relations`` from every node of ``start_type``, shuffled with ``seed``
    and cut at ``max_paths``."""
    paths = [p for node in graph.nodes_of_type(start_type) for p in walks(graph, node.id, relations)]
    random.Random(seed).shuffle(paths)
    return paths[:max_paths] if max_paths is not None else paths
