"""The ``search`` tool of the CUAD contract-search task, with the per-episode record rewards read.

One :class:`CorpusSearch` serves one episode: :meth:`reset` clears it, :meth:`search` runs a query on the
shared retriever, formats the hits for the model and records their chunk ids, which become the
``retrieved_chunk_ids`` and ``num_searches`` columns of :mod:`agenttune.rewards.cuad_search`.
"""

from __future__ import annotations

from agenttune.rag.retriever import Retriever


class CorpusSearch:
    """Search tool bound to a built retriever.

    Args:
        retriever: a retriever on which ``build(chunks)`` was called.
        k: hits returned per search.
        max_chars: each hit's text is cut to this many characters in the tool output.
    """

    def __init__(self, retriever: Retriever, k: int = 4, max_chars: int = 800) -> None:
        self.retriever = retriever
        self.k = k
        self.max_chars = max_chars
        self.retrieved_chunk_ids: list[str] = []
        self.queries: list[str] = []

    @property
    def num_searches(self) -> int:
        return len(self.queries)

    def reset(self, **_: object) -> None:
        """Start a new episode: forget earlier queries and hits."""
        self.retrieved_chunk_ids = []
        self.queries = []

    def search(self, query: str) -> str:
        """Search the contract collection for passages relevant to a query.

        Args:
            query: Keywords or a question, for example the contract's parties and the clause sought.

        Returns:
            The best matching passages, each headed by its rank, passage id and contract.
        """
        self.queries.append(query)
        hits = self.retriever.search(query, self.k)
        self.retrieved_chunk_ids.extend(h.chunk_id for h in hits)
        if not hits:
            return "No passages matched the query."
        return "\n\n".join(
            f"[{rank}] {hit.chunk_id}\n{hit.text[: self.max_chars]}" for rank, hit in enumerate(hits, start=1)
        )
