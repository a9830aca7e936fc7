"""The search corpus for a run: a deterministic subset of CUAD contracts, chunked with offsets.

Encoding all 510 contracts densely takes a while on a laptop CPU, so a run can cap the corpus at
``max_docs`` contracts: the documents its questions need come first, then others in a seeded hash order.
With ``headers=True`` (the default) every chunk is indexed under its contract's title and parties (see
:attr:`agenttune.rag.chunking.Chunk.index_text`), so "the clause of the X agreement between A and B" can
find a clause whose own text names neither.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

from agenttune.benchmarks.cuad.data import CuadContract, load_contracts
from agenttune.rag.chunking import Chunk, chunk_documents


def select_doc_ids(
    doc_ids: Sequence[str], max_docs: int | None = None, required: Iterable[str] = (), seed: int = 0
) -> list[str]:
    """``required`` ids (in order) then the rest by a seeded hash, cut at ``max_docs``; with ``max_docs=None``
    every id in corpus order, so the full corpus is one index whatever the questions (its cache is reused).

    Required ids are always kept, even past ``max_docs``.

    >>> select_doc_ids(["a", "b", "c", "d"], max_docs=2, required=["c"])[0]
    'c'
    >>> select_doc_ids(["a", "b", "c"], required=["c"])
    ['a', 'b', 'c']
    """
    known = set(doc_ids)
    must = [d for d in dict.fromkeys(required)]
    unknown = [d for d in must if d not in known]
    if unknown:
        raise KeyError(f"required documents not in the corpus: {unknown[:5]}")
    if max_docs is None:
        return list(doc_ids)
    rest = sorted(set(doc_ids) - set(must), key=lambda d: hashlib.sha256(f"{seed}:{d}".encode()).hexdigest())
    limit = len(doc_ids) if max_docs is None else max(max_docs, len(must))
    return (must + rest)[:limit]


def contract_header(contract: CuadContract) -> str:
    """``"<title> (<party>; <party>)"``, the header a contract's chunks are indexed under."""
    parties = "; ".join(contract.party_names)
    return f"{contract.title} ({parties})" if parties else contract.title


def cuad_documents(
    max_docs: int | None = None, required_doc_ids: Iterable[str] = (), seed: int = 0
) -> dict[str, str]:
    """``doc_id -> text`` for the selected CUAD contracts."""
    texts = {c.doc_id: c.text for c in load_contracts()}
    return {d: texts[d] for d in select_doc_ids(list(texts), max_docs, required_doc_ids, seed)}


def cuad_chunks(
    max_docs: int | None = None,
    required_doc_ids: Iterable[str] = (),
    chunk_size: int = 1000,
    chunk_overlap: int = 200,
    seed: int = 0,
    headers: bool = True,
) -> list[Chunk]:
    """Chunks of the selected CUAD contracts; pass the questions' ``doc_ids`` as ``required_doc_ids``."""
    documents = cuad_documents(max_docs, required_doc_ids, seed)
    titles = (
        {c.doc_id: contract_header(c) for c in load_contracts() if c.doc_id in documents} if headers else None
    )
    return chunk_documents(documents, chunk_size, chunk_overlap, titles)
