"""``harness=search_corpus``: answer a question by searching a document collection.

The agent has one tool, ``search(query)``, backed by any object with ``search(query, k)`` returning hits with
``chunk_id``, ``doc_id``, ``text`` and ``score`` (every retriever in :mod:`agenttune.rag` fits). The tool result
lists the hits as numbered chunks, each headed by its ids::

    [1] chunk_id: lease.txt#3 | doc_id: lease.txt | score: 7.210
    <the chunk's text>

so evidence rewards can recover what was retrieved from the EventLog alone (:func:`retrieved_chunk_ids`).
A final TEXT action (answer in ``<answer>...</answer>``) ends the episode; so does reaching ``max_steps``.

``StepResult.info`` adds to :class:`~agenttune.harness.tools_harness.ToolsHarness`'s keys: ``searches``
(successful search calls so far), ``retrieved_chunk_ids`` (every chunk shown so far, first-seen order, no
repeats) and ``step_chunk_ids`` (the chunks this step's search showed, ranked; empty for other actions). Both
are read back from the result text, so they match what :func:`retrieved_chunk_ids` finds in the EventLog.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from agenttune.config import HarnessConfig
from agenttune.events.schema import Event, EventKind
from agenttune.harness.tools import ToolRegistry
from agenttune.harness.tools_harness import EpisodeState, Task, ToolsHarness

SEARCH_SYSTEM_PROMPT = (
    "Answer the question from the document collection. Call search(query) to find relevant passages; "
    "search again with other words if the passages do not answer it. When you know the answer, reply with "
    "it inside <answer>...</answer>, quoting the documents where you can."
)
_HEADER = re.compile(r"^\[\d+\] chunk_id: (.+?) \| doc_id: .+? \| score: \S+$", re.MULTILINE)


class SearchHit(Protocol):
    chunk_id: str
    doc_id: str
    text: str
    score: float


class SearchBackend(Protocol):
    """Anything that can be searched: ``search(query, k)`` returns up to ``k`` hits, best first."""

    def search(self, query: str, k: int) -> list[SearchHit]: ...


def format_hits(query: str, hits: list[SearchHit]) -> str:
    """The text of a search tool result.

    >>> @dataclass
    ... class H:
    ...     chunk_id: str
    ...     doc_id: str
    ...     text: str
    ...     score: float
    >>> print(format_hits("rent", [H("lease#0", "lease", "Rent is due monthly.", 2.5)]))
    [1] chunk_id: lease#0 | doc_id: lease | score: 2.500
    Rent is due monthly.
    >>> format_hits("zebra", [])
    "No passages match 'zebra'. Try other words."
    """
    if not hits:
        return f"No passages match {query!r}. Try other words."
    return "\n\n".join(
        f"[{rank}] chunk_id: {hit.chunk_id} | doc_id: {hit.doc_id} | score: {hit.score:.3f}\n{hit.text.strip()}"
        for rank, hit in enumerate(hits, start=1)
    )


def _search_results(events: Iterable[Event], tool_name: str) -> list[str]:
    """The contents of successful ``tool_name`` results among ``events``."""
    return [
        event.payload.content
        for event in events
        if event.kind == EventKind.TOOL_RESULT
        and event.payload.name == tool_name
        and not event.payload.is_error
    ]


def retrieved_chunk_ids(events: Iterable[Event], tool_name: str = "search") -> list[str]:
    """Chunk ids shown by successful ``search`` results in ``events``, in the order shown (repeats kept)."""
    return [cid for content in _search_results(events, tool_name) for cid in _HEADER.findall(content)]


@dataclass
class SearchState(EpisodeState):
    searches: int = 0  # successful search calls
    retrieved: list[str] = field(default_factory=list)  # chunk ids shown so far, first-seen order, no repeats
    step_chunk_ids: list[str] = field(default_factory=list)  # chunk ids the last step's search showed


class SearchCorpusHarness(ToolsHarness):
    """Search a corpus, then answer.

    Args:
        retriever: the search backend (see :class:`SearchBackend`).
        top_k: hits per search.
        max_steps: actions per episode (searches and the final message).
        tool_timeout_s: deadline of one search.
        system_prompt: the SYSTEM event opening every episode.
    """

    def __init__(
        self,
        retriever: SearchBackend,
        top_k: int = 8,
        max_steps: int = 50,
        tool_timeout_s: float = 30.0,
        system_prompt: str = SEARCH_SYSTEM_PROMPT,
    ) -> None:
        self.retriever = retriever
        self.top_k = top_k
        registry = ToolRegistry([self.search], timeout_s=tool_timeout_s)
        super().__init__(registry, max_steps=max_steps, system_prompt=system_prompt)

    @classmethod
    def from_config(cls, retriever: SearchBackend, cfg: HarnessConfig) -> SearchCorpusHarness:
        return cls(retriever, top_k=cfg.top_k, max_steps=cfg.max_steps, tool_timeout_s=cfg.tool_timeout_s)

    def search(self, query: str) -> str:
        """Search the document collection for passages relevant to a query.

        Args:
            query: Keywords or a question describing the passages to find.
        """
        return format_hits(query, self.retriever.search(query, k=self.top_k))

    def _new_state(self, task: Task) -> SearchState:
        return SearchState(task=task)

    def _respond(self, action: Event) -> list[Event]:
        """Run the action, then record what its search results showed (read back from their text)."""
        observations = super()._respond(action)
        state = self.state
        state.searches += len(_search_results(observations, "search"))
        state.step_chunk_ids = retrieved_chunk_ids(observations)
        state.retrieved = list(dict.fromkeys([*state.retrieved, *state.step_chunk_ids]))
        return observations

    def info(self) -> dict[str, Any]:
        state = self.state
        return {
            **super().info(),
            "searches": state.searches,
            "retrieved_chunk_ids": list(state.retrieved),
            "step_chunk_ids": list(state.step_chunk_ids),
        }
