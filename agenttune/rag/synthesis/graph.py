"""A typed entity graph whose edges are backed by evidence chunks.

Nodes are typed entities (``contract``, ``party``, ``jurisdiction``, ``date``, ...). An edge says
``src --relation--> dst`` and carries the ids of the chunks that state it; each edge is stored with its
inverse (``party_to`` for ``has_party``) so paths can run either way. Removing evidence chunks removes
the edges that no remaining chunk supports: that is how the hop-necessity check asks "could the answer
still be reached without this hop's passages?".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Node:
    """An entity: ``id`` is ``"<type>:<key>"``; ``label`` is how questions and answers name it.

    ``evidence`` are chunks that state the label itself (a contract's title), used as answer evidence when
    no hop's chunk contains it; ``aliases`` are other accepted answers (a date's normalised form).
    """

    id: str
    type: str
    label: str
    aliases: tuple[str, ...] = ()
    evidence: tuple[str, ...] = ()


@dataclass(frozen=True)
class Edge:
    """``src --relation--> dst``, stated by the chunks in ``evidence`` (at least one)."""

    src: str
    relation: str
    dst: str
    evidence: frozenset[str]


@dataclass
class EvidenceGraph:
    """Nodes, evidence-backed edges (each with its inverse) and the text of every evidence chunk."""

    inverse: dict[str, str]
    nodes: dict[str, Node] = field(default_factory=dict)
    chunk_text: dict[str, str] = field(default_factory=dict)
    chunk_doc: dict[str, str] = field(default_factory=dict)
    _out: dict[str, dict[str, dict[str, set[str]]]] = field(default_factory=dict)

    def add_node(self, node: Node) -> Node:
        """Add ``node`` unless a node with its id exists; returns the stored node."""
        return self.nodes.setdefault(node.id, node)

    def add_edge(self, src: str, relation: str, dst: str, evidence: Iterable[str]) -> None:
        """Add ``src --relation--> dst`` and its inverse, merging evidence with any existing edge."""
        chunks = set(evidence)
        if not chunks:
            raise ValueError(f"edge {src} --{relation}--> {dst} needs at least one evidence chunk")
        for a, rel, b in ((src, relation, dst), (dst, self.inverse[relation], src)):
            self._out.setdefault(a, {}).setdefault(rel, {}).setdefault(b, set()).update(chunks)

    def edges(self, src: str, relation: str, removed: frozenset[str] = frozenset()) -> list[Edge]:
        """Edges leaving ``src`` by ``relation`` that some chunk outside ``removed`` still supports."""
        out = []
        for dst, evidence in self._out.get(src, {}).get(relation, {}).items():
            kept = frozenset(evidence - removed)
            if kept:
                out.append(Edge(src, relation, dst, kept))
        return out

    def relations(self, src: str) -> list[str]:
        """Relations leaving ``src``."""
        return list(self._out.get(src, {}))

    def nodes_of_type(self, node_type: str) -> list[Node]:
        return [n for n in self.nodes.values() if n.type == node_type]
