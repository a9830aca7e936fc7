"""``harness=search_corpus``: answer a question by searching a document collection, as a person would.

Three tools (``harness.tools`` picks which the agent gets):

- ``search(query)``: the best passages of the whole collection;
- ``find_documents(name)``: documents whose title, parties or file name match (needs a
  :class:`~agenttune.rag.catalog.DocumentCatalog`);
- ``search_document(doc_id, query)``: the best passages of one document.

Searches are backed by any object with ``search(query, k, doc_id=None)`` returning hits with ``chunk_id``,
``doc_id``, ``text``, ``score``, ``start`` and ``end`` (every retriever in :mod:`agenttune.rag` fits). A result
lists the hits numbered, each headed by its document and the character range of the text shown::

    [1] doc_id: lease | chars 2400-2560
    <the text of lease[2400:2560]>

(best first; scores are left out: they cost tokens and tell the agent nothing the rank does not).

With ``snippet_chars`` > 0 each hit shows the window of that many characters holding most of the query's words
(:func:`agenttune.rag.snippets.best_window`), else its whole chunk. The log gets the facts as data in the
TOOL_RESULT's ``metadata``: ``retrieved_ids`` (the chunk ids, ranked; the key
:func:`agenttune.events.projections.evaluator.evaluator_input` collects), ``doc_ids``, ``spans`` (``[doc_id,
start, end]`` of each text shown: the evidence the agent saw) and ``query``; ``find_documents`` records the
``doc_ids`` it listed. A final TEXT action (answer in ``<answer>...</answer>``) ends the episode; so does
reaching ``max_steps``.

``StepResult.info`` adds to :class:`~agenttune.harness.tools_harness.ToolsHarness`'s keys: ``searches`` (successful
calls of any tool so far), ``retrieved_chunk_ids`` (every chunk shown so far, first-seen order, no repeats) and
``step_chunk_ids`` (the chunks this step showed, ranked; empty for other actions), both taken from the results'
``metadata``, so they match what the EventLog holds.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from agenttune.config import HarnessConfig
from agenttune.engines.extractive import collapse
from agenttune.events.projections.evaluator import RETRIEVED_IDS_KEY
from agenttune.events.schema import Event, EventKind
from agenttune.harness.tools import ToolOutput, ToolRegistry
from agenttune.harness.tools_harness import EpisodeState, Task, ToolsHarness
from agenttune.rag.catalog import DocumentCatalog
from agenttune.rag.snippets import best_window

SEARCH_TOOLS = ("search", "find_documents", "search_document")
SEARCH_SYSTEM_PROMPT = (
    "Answer the question from the document collection. Call search(query) to find relevant passages; "
    "search again with other words if the passages do not answer it. When you know the answer, reply with "
    "it inside <answer>...</answer>, quoting the documents where you can."
)
DOCUMENT_TOOLS_PROMPT = (
    "Answer the question from the document collection. Tools: search(query) searches every document; "
    "find_documents(name) lists the documents whose title or parties match; search_document(doc_id, query) "
    "searches one document. Find the document the question names, then the passage within it; if the passages "
    "do not answer it, search again with other words. When you know the answer, reply with it inside "
    "<answer>...</answer>, quoting the documents where you can."
)


class SearchHit(Protocol):
    chunk_id: str
    doc_id: str
    text: str
    score: float
    start: int
    end: int


class SearchBackend(Protocol):
    """Anything that can be searched: ``search(query, k, doc_id)`` returns up to ``k`` hits, best first, only
    from document ``doc_id`` when it is given."""

    def search(self, query: str, k: int, doc_id: str | None = None) -> list[SearchHit]: ...


@dataclass(frozen=True)
class Shown:
    """What a result shows of one hit: its document, the range ``[start, end)`` and the text."""

    doc_id: str
    start: int
    end: int
    text: str


def shown_part(hit: SearchHit, query: str, snippet_chars: int = 0, finish_sentence: bool = False) -> Shown:
    """The part of ``hit`` a result shows: all of it, or the ``snippet_chars`` window best matching ``query``
    (run on to the end of its last sentence with ``finish_sentence``)."""
    if snippet_chars:
        start, end = best_window(hit.text, query, snippet_chars, finish_sentence)
    else:
        start, end = 0, len(hit.text)
    return Shown(hit.doc_id, hit.start + start, hit.start + end, hit.text[start:end])


def format_hits(query: str, shown: Sequence[Shown], collapse_whitespace: bool = False) -> str:
    """The text of a search tool result; with ``collapse_whitespace`` each passage shows every run of whitespace
    as one space (:func:`~agenttune.engines.extractive.collapse`).

    >>> print(format_hits("rent", [Shown("lease", 40, 60, "Rent is due monthly.")]))
    [1] doc_id: lease | chars 40-60
    Rent is due monthly.
    >>> print(format_hits("marks", [Shown("lease", 0, 22, "service\\n\\n\\n\\nmarks, and")], collapse_whitespace=True))
    [1] doc_id: lease | chars 0-22
    service marks, and
    >>> format_hits("zebra", [])
    "No passages match 'zebra'. Try other words."
    """
    if not shown:
        return f"No passages match {query!r}. Try other words."
    return "\n\n".join(
        f"[{rank}] doc_id: {part.doc_id} | chars {part.start}-{part.end}\n"
        + (collapse(part.text) if collapse_whitespace else part.text).strip()
        for rank, part in enumerate(shown, start=1)
    )


def _successful_results(observations: Iterable[Event]) -> list[Event]:
    """The TOOL_RESULTs among ``observations`` that are not errors."""
    return [e for e in observations if e.kind == EventKind.TOOL_RESULT and not e.payload.is_error]


@dataclass
class SearchState(EpisodeState):
    searches: int = 0  # successful tool calls (every tool counts)
    retrieved: list[str] = field(default_factory=list)  # chunk ids shown so far, first-seen order, no repeats
    step_chunk_ids: list[str] = field(default_factory=list)  # chunk ids the last step's search showed


class SearchCorpusHarness(ToolsHarness):
    """Search a corpus (or one of its documents, or its catalogue of documents), then answer.

    Args:
        retriever: the search backend (see :class:`SearchBackend`).
        top_k: hits per search (and documents per ``find_documents``).
        snippet_chars: characters of each hit's text shown to the model (0: the whole chunk).
        snippet_finish_sentence: run each snippet on to the end of the sentence it cuts (a quarter more at most).
        snippet_collapse_whitespace: show each run of whitespace in a passage as one space (a contract's page
            break inside a clause reads as six line breaks, and the student ended its quote there).
        max_steps: actions per episode (tool calls and the final message).
        tool_timeout_s: deadline of one call.
        system_prompt: the SYSTEM event opening every episode (default: the prompt naming ``tools``).
        catalog: the documents' catalogue; needed by ``find_documents`` and ``search_document``.
        tools: which of :data:`SEARCH_TOOLS` the agent gets.
    """

    def __init__(
        self,
        retriever: SearchBackend,
        top_k: int = 8,
        max_steps: int = 50,
        tool_timeout_s: float = 30.0,
        system_prompt: str | None = None,
        snippet_chars: int = 0,
        snippet_finish_sentence: bool = False,
        snippet_collapse_whitespace: bool = False,
        catalog: DocumentCatalog | None = None,
        tools: Sequence[str] = ("search",),
    ) -> None:
        unknown = [t for t in tools if t not in SEARCH_TOOLS]
        if unknown or not tools:
            raise ValueError(f"harness.tools {list(tools)}: choose one or more of {list(SEARCH_TOOLS)}")
        if catalog is None and set(tools) - {"search"}:
            raise ValueError(f"harness.tools {list(tools)} need a document catalog; none was given")
        self.retriever = retriever
        self.catalog = catalog
        self.top_k = top_k
        self.snippet_chars = snippet_chars
        self.snippet_finish_sentence = snippet_finish_sentence
        self.snippet_collapse_whitespace = snippet_collapse_whitespace
        if system_prompt is None:
            system_prompt = SEARCH_SYSTEM_PROMPT if list(tools) == ["search"] else DOCUMENT_TOOLS_PROMPT
        registry = ToolRegistry([getattr(self, name) for name in tools], timeout_s=tool_timeout_s)
        super().__init__(registry, max_steps=max_steps, system_prompt=system_prompt)

    @classmethod
    def from_config(
        cls, retriever: SearchBackend, cfg: HarnessConfig, catalog: DocumentCatalog | None = None
    ) -> SearchCorpusHarness:
        return cls(
            retriever,
            top_k=cfg.top_k,
            max_steps=cfg.max_steps,
            tool_timeout_s=cfg.tool_timeout_s,
            snippet_chars=cfg.snippet_chars,
            snippet_finish_sentence=cfg.snippet_finish_sentence,
            snippet_collapse_whitespace=cfg.snippet_collapse_whitespace,
            catalog=catalog,
            tools=cfg.tools,
        )

    def _result(self, query: str, hits: list[SearchHit]) -> ToolOutput:
        shown = [shown_part(h, query, self.snippet_chars, self.snippet_finish_sentence) for h in hits]
        metadata = {
            RETRIEVED_IDS_KEY: [h.chunk_id for h in hits],
            "doc_ids": [h.doc_id for h in hits],
            "spans": [[p.doc_id, p.start, p.end] for p in shown],
            "query": query,
        }
        return ToolOutput(format_hits(query, shown, self.snippet_collapse_whitespace), metadata)

    def search(self, query: str) -> ToolOutput:
        """Search every document of the collection for passages relevant to a query.

        Args:
            query: Keywords or a question describing the passages to find.
        """
        return self._result(query, self.retriever.search(query, k=self.top_k))

    def find_documents(self, name: str) -> ToolOutput:
        """List the documents whose title, parties or file name match a name.

        Args:
            name: Words of the document's title or its parties' names.
        """
        found = self.catalog.find(name, self.top_k)
        if not found:
            return ToolOutput(
                f"No documents match {name!r}. Try other words.", {"doc_ids": [], "query": name}
            )
        text = "\n".join(
            f"[{rank}] doc_id: {e.doc_id}" + (f" | {e.header}" if e.header else "")
            for rank, e in enumerate(found, start=1)
        )
        return ToolOutput(text, {"doc_ids": [e.doc_id for e in found], "query": name})

    def search_document(self, doc_id: str, query: str) -> ToolOutput:
        """Search one document for passages relevant to a query.

        Args:
            doc_id: The document's id, as search or find_documents list it.
            query: Keywords or a question describing the passages to find.
        """
        if doc_id not in self.catalog:
            raise ValueError(f"no document with doc_id {doc_id!r}; find_documents(name) lists document ids")
        return self._result(query, self.retriever.search(query, k=self.top_k, doc_id=doc_id))

    def _new_state(self, task: Task) -> SearchState:
        return SearchState(task=task)

    def _respond(self, action: Event) -> list[Event]:
        """Run the action, then record what its results showed."""
        observations = super()._respond(action)
        state, results = self.state, _successful_results(observations)
        state.searches += len(results)
        state.step_chunk_ids = [c for e in results for c in e.payload.metadata.get(RETRIEVED_IDS_KEY, [])]
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
