"""The CUAD entity graph for multi-hop questions, and the path templates asked over it.

Typed nodes: ``contract`` (labelled by its title), ``party`` (names from the Parties answer column, merged
across contracts by a normalised key), ``jurisdiction`` (Governing Law answer) and ``date`` (the Agreement
Date as written). Edges: ``has_party`` / ``party_to``, ``governed_by`` / ``governs``, ``dated`` /
``date_of``, each backed by the chunks that state it. Parties shared between contracts make the bridges
of 3- to 5-hop questions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from agenttune.benchmarks.cuad.data import CuadContract
from agenttune.rag.chunking import Chunk, chunk_text, covering_chunks
from agenttune.rag.synthesis.generators import PathTemplate
from agenttune.rag.synthesis.graph import EvidenceGraph, Node

INVERSE = {
    "has_party": "party_to",
    "party_to": "has_party",
    "governed_by": "governs",
    "governs": "governed_by",
    "dated": "date_of",
    "date_of": "dated",
}

_LEGAL_SUFFIXES = (
    r"\b(the|inc|incorporated|corp|corporation|co|company|ltd|limited|llc|lp|l p|plc|sa|s a|nv|n v|ag|gmbh)\b"
)
# Defined-term roles that the Parties column sometimes lists instead of a name.
GENERIC_PARTY_NAMES = {
    "agent", "buyer", "client", "company", "consultant", "contractor", "customer", "distributor",
    "franchisee", "franchisor", "licensee", "licensor", "manufacturer", "partner", "provider",
    "purchaser", "reseller", "seller", "sponsor", "supplier", "vendor",
}  # fmt: skip
# Longer "names" are descriptions that slipped into the Parties column ("Each Party or any of its ...").
MAX_PARTY_WORDS = 8

TEMPLATES = (
    PathTemplate(
        "party_law", "party", ("party_to", "governed_by"),
        "Which jurisdiction's law governs the agreement that {start} signed?",
    ),
    PathTemplate(
        "party_date", "party", ("party_to", "dated"),
        "On what date was the agreement signed by {start} made?",
    ),
    PathTemplate(
        "party_counterparty", "party", ("party_to", "has_party"),
        "Which company signed an agreement with {start}?",
    ),
    PathTemplate(
        "counterparty_other_contract", "party", ("party_to", "has_party", "party_to"),
        "{start} signed an agreement with another company. What is the title of a different agreement "
        "that this other company signed?",
    ),
    PathTemplate(
        "counterparty_other_law", "party", ("party_to", "has_party", "party_to", "governed_by"),
        "{start} signed an agreement with another company. Which jurisdiction's law governs a different "
        "agreement that this other company signed?",
    ),
    PathTemplate(
        "counterparty_other_date", "party", ("party_to", "has_party", "party_to", "dated"),
        "{start} signed an agreement with another company. On what date was a different agreement that "
        "this other company signed made?",
    ),
    PathTemplate(
        "counterparty_other_partner", "party", ("party_to", "has_party", "party_to", "has_party"),
        "{start} signed an agreement with another company. Who is that company's counterparty in a "
        "different agreement?",
    ),
    PathTemplate(
        "chain_third_contract", "party", ("party_to", "has_party", "party_to", "has_party", "party_to"),
        "{start} signed an agreement with a second company, which signed another agreement with a third "
        "company. What is the title of a different agreement that the third company signed?",
    ),
)  # fmt: skip


def party_key(name: str) -> str:
    """A name key that ignores case, punctuation and legal-form suffixes.

    >>> party_key("Ingram Micro Inc."), party_key("INGRAM MICRO, INC")
    ('ingram micro', 'ingram micro')
    """
    key = re.sub(r"[^a-z0-9 ]", " ", name.lower())
    return " ".join(re.sub(_LEGAL_SUFFIXES, " ", key).split())


def _chunks_stating(text: str, chunks: Sequence[Chunk], needle: str) -> set[str]:
    """Ids of the chunks covering each case-insensitive occurrence of ``needle`` in ``text``."""
    found: set[str] = set()
    lowered, target = text.lower(), needle.lower()
    start = lowered.find(target)
    while target and start >= 0:
        found.update(c.id for c in covering_chunks(chunks, start, start + len(target)))
        start = lowered.find(target, start + 1)
    return found


def _first_quote_chunks(
    contract: CuadContract, category: str, chunks: Sequence[Chunk]
) -> tuple[str, set[str]]:
    """The first of the category's quotes found in the text and the chunks covering it."""
    for quote in contract.clauses.get(category, []):
        quote = quote.strip()
        if quote and (start := contract.text.find(quote)) >= 0:
            return quote, {c.id for c in covering_chunks(chunks, start, start + len(quote))}
    return "", set()


def add_contract(graph: EvidenceGraph, contract: CuadContract, chunks: Sequence[Chunk]) -> None:
    """Add one contract's node, parties, governing law and agreement date with their evidence chunks."""
    for chunk in chunks:
        graph.chunk_text[chunk.id] = chunk.text
        graph.chunk_doc[chunk.id] = chunk.doc_id
    _, title_chunks = _first_quote_chunks(contract, "Document Name", chunks)
    contract_id = f"contract:{contract.doc_id}"
    graph.add_node(Node(contract_id, "contract", contract.title, evidence=tuple(sorted(title_chunks))))
    for name in contract.party_names:
        key = party_key(name)
        evidence = _chunks_stating(contract.text, chunks, name)
        if (
            4 <= len(key)
            and len(key.split()) <= MAX_PARTY_WORDS
            and key not in GENERIC_PARTY_NAMES
            and evidence
        ):
            graph.add_node(Node(f"party:{key}", "party", name))
            graph.add_edge(contract_id, "has_party", f"party:{key}", evidence)
    law = contract.answers.get("Governing Law", "")
    quote, evidence = _first_quote_chunks(contract, "Governing Law", chunks)
    if law and law.lower() in quote.lower():
        graph.add_node(Node(f"jurisdiction:{law.lower()}", "jurisdiction", law))
        graph.add_edge(contract_id, "governed_by", f"jurisdiction:{law.lower()}", evidence)
    date = contract.answers.get("Agreement Date", "")
    quote, evidence = _first_quote_chunks(contract, "Agreement Date", chunks)
    if date and quote:
        graph.add_node(Node(f"date:{date}", "date", " ".join(quote.split()), aliases=(date,)))
        graph.add_edge(contract_id, "dated", f"date:{date}", evidence)


def build_cuad_graph(
    contracts: Iterable[CuadContract], chunk_size: int = 1000, chunk_overlap: int = 200
) -> EvidenceGraph:
    """The entity graph of ``contracts``, evidence given as chunk ids under this chunking."""
    graph = EvidenceGraph(inverse=INVERSE)
    for contract in contracts:
        add_contract(graph, contract, chunk_text(contract.doc_id, contract.text, chunk_size, chunk_overlap))
    return graph
