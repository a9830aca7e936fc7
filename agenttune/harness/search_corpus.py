"""``harness=search_corpus``: answer a question by searching a document collection.

The agent has one tool, ``search(query)``, backed by any object with ``search(query, k)`` returning hits with
``chunk_id``, ``doc_id``, ``text`` and ``score`` (every retriever in :mod:`agenttune.rag` fits). The tool result
lists the hits as numbered chunks, each headed by its ids::

    [1] chunk_id: lease.txt#3 | doc_id: lease.txt | score: 7.210
    <the chunk's text>

The model sees the ids (to cite them); the log gets them as data in the TOOL_RESULT's ``metadata``:
``retrieved_ids`` (the chunk ids, ranked; the key :func:`agenttune.events.projections.evaluator.evaluator_input`
collects for evidence metrics), ``doc_ids`` and ``query``. A final TEXT action (answer in ``<answer>...</answer>``) ends the episode; so does reaching ``max_steps``.

``StepResult.info`` adds to :class:`~agenttune.harness.tools_harness.ToolsHarness`'s keys: ``searches``
(successful search calls so far), ``retrieved_chunk_ids`` (every chunk shown so far, first-seen order, no
repeats) and ``step_chunk_ids`` (the chunks this step's search showed, ranked; empty for other actions), both
taken from the results' ``metadata``, so they match what the EventLog holds.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from agenttune.config import HarnessConfig
from agenttune.events.projections.evaluator import RETRIEVED_IDS_KEY
from agenttune.events.schema import Event, EventKind
from agenttune.harness.tools import ToolOutput, ToolRegistry
from agenttune.harness.tools_harness import EpisodeState, Task, ToolsHarness

SEARCH_SYSTEM_PROMPT = (
    "Answer the question from the document collection. Call search(query) to find relevant passages; "
    "search again with other words if the passages do not answer it. When you know the answer, reply with "
    "it inside <answer>...</answer>, quoting the documents where you can."
)


class SearchHit(Protocol):
    chunk_id: str
    doc_id: str
    text: str
    score: float


class SearchBackend(Protocol):
    """Anything that can be searched: ``search(query, k)`` returns up to ``k`` hits, best first."""

    def search(self, query: str, k: int) -> list[SearchHit]: ...


def format_hits(query: str, hits: list[SearchHit], snippet_chars: int = 0) -> str:
    """The text of a search tool result; with ``snippet_chars`` > 0 each hit's text is cut to that many characters.

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
        f"[{rank}] chunk_id: {hit.chunk_id} | doc_id: {hit.doc_id} | score: {hit.score:.3f}\n"
        f"{hit.text.strip()[: snippet_chars or None]}"
        for rank, hit in enumerate(hits, start=1)
    )


def _shown_chunk_ids(observations: Iterable[Event], tool_name: str) -> list[list[str]]:
    """The ranked chunk ids of each successful ``tool_name`` result among ``observations``."""
    return [
        list(event.payload.metadata[RETRIEVED_IDS_KEY])
        for event in observations
        if event.kind == EventKind.TOOL_RESULT
        and event.payload.name == tool_name
        and not event.payload.is_error
    ]


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
        snippet_chars: characters of each hit's text shown to the model (0: all); the ids are always shown.
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
        snippet_chars: int = 0,
    ) -> None:
        self.retriever = retriever
        self.top_k = top_k
        self.snippet_chars = snippet_chars
        registry = ToolRegistry([self.search], timeout_s=tool_timeout_s)
        super().__init__(registry, max_steps=max_steps, system_prompt=system_prompt)

    @classmethod
    def from_config(cls, retriever: SearchBackend, cfg: HarnessConfig) -> SearchCorpusHarness:
        return cls(
            retriever,
            top_k=cfg.top_k,
            max_steps=cfg.max_steps,
            tool_timeout_s=cfg.tool_timeout_s,
            snippet_chars=cfg.snippet_chars,
        )

    def search(self, query: str) -> ToolOutput:
        """Search the document collection for passages relevant to a query.

        Args:
            query: Keywords or a question describing the passages to find.
        """
        hits = self.retriever.search(query, k=self.top_k)
        metadata = {
            RETRIEVED_IDS_KEY: [h.chunk_id for h in hits],
            "doc_ids": [h.doc_id for h in hits],
            "query": query,
        }
        return ToolOutput(format_hits(query, hits, self.snippet_chars), metadata)

    def _new_state(self, task: Task) -> SearchState:
        return SearchState(task=task)

    def _respond(self, action: Event) -> list[Event]:
        """Run the action, then record what its search results showed."""
        observations = super()._respond(action)
        state, shown = self.state, _shown_chunk_ids(observations, "search")
        state.searches += len(shown)
        state.step_chunk_ids = [chunk_id for ids in shown for chunk_id in ids]
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
