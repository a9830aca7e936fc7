"""Split documents into overlapping character windows that keep their exact offsets.

A :class:`Chunk` always satisfies ``chunk.text == document[chunk.start:chunk.end]``, so a gold span (a
clause quote's offsets) maps to the chunks that hold it without any fuzzy matching. A chunk may carry a
``header`` (its document's title and parties, say): backends index ``header + text`` (:attr:`Chunk.index_text`)
but return only ``text``, so a clause deep inside a contract is still found by the contract's name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Chunk:
    """A window ``[start, end)`` of document ``doc_id``; ``id`` is ``"<doc_id>#<index>"``."""

    id: str
    doc_id: str
    start: int
    end: int
    text: str
    header: str = ""

    @property
    def index_text(self) -> str:
        """What a backend indexes: the header (when set) on its own line, then the text."""
        return f"{self.header}\n{self.text}" if self.header else self.text

    def to_dict(self) -> dict:
        return asdict(self)


def _snap_back_to_space(text: str, start: int, end: int, slack: int) -> int:
    """Move ``end`` back to just after the last whitespace in ``(end - slack, end]`` so words stay whole."""
    cut = text.rfind(" ", max(start + 1, end - slack), end)
    newline = text.rfind("\n", max(start + 1, end - slack), end)
    cut = max(cut, newline)
    return cut + 1 if cut > start else end


def chunk_text(doc_id: str, text: str, size: int = 1000, overlap: int = 200, header: str = "") -> list[Chunk]:
    """Cut ``text`` into windows of at most ``size`` characters, consecutive windows sharing ``overlap``.

    Window ends are pulled back (by at most a fifth of ``size``) to a whitespace boundary. Every chunk
    gets ``header``.

    >>> [(c.start, c.end) for c in chunk_text("d", "aaaa bbbb cccc dddd", size=10, overlap=5)]
    [(0, 10), (5, 15), (10, 19)]
    """
    if size <= 0 or not 0 <= overlap < size:
        raise ValueError(f"need size > 0 and 0 <= overlap < size, got size={size}, overlap={overlap}")
    chunks: list[Chunk] = []
    start, n = 0, len(text)
    while start < n:
        end = min(start + size, n)
        if end < n:
            end = _snap_back_to_space(text, start, end, slack=size // 5)
        chunks.append(Chunk(f"{doc_id}#{len(chunks)}", doc_id, start, end, text[start:end], header))
        if end >= n:
            break
        start = max(end - overlap, start + 1)
    return chunks


def chunk_documents(
    documents: Mapping[str, str],
    size: int = 1000,
    overlap: int = 200,
    headers: Mapping[str, str] | None = None,
) -> list[Chunk]:
    """Chunk every ``doc_id -> text`` entry, in the mapping's order; ``headers`` maps doc ids to headers."""
    headers = headers or {}
    return [
        c
        for doc_id, text in documents.items()
        for c in chunk_text(doc_id, text, size, overlap, headers.get(doc_id, ""))
    ]


def covering_chunks(chunks: Sequence[Chunk], start: int, end: int) -> list[Chunk]:
    """The fewest chunks of one document whose union covers ``[start, end)`` (greedy interval cover).

    A span that fits inside one chunk maps to that one chunk even when the overlap makes two chunks hold it.

    >>> cs = chunk_text("d", "aaaa bbbb cccc dddd", size=10, overlap=5)
    >>> [c.id for c in covering_chunks(cs, 6, 9)], [c.id for c in covering_chunks(cs, 2, 17)]
    (['d#1'], ['d#0', 'd#2'])
    """
    ordered = sorted(chunks, key=lambda c: (c.start, -c.end))
    picked: list[Chunk] = []
    pos = start
    while pos < end:
        best = max((c for c in ordered if c.start <= pos < c.end), key=lambda c: c.end, default=None)
        if best is None:
            raise ValueError(f"span [{start}, {end}) is not covered by the given chunks at offset {pos}")
        picked.append(best)
        pos = best.end
    return picked


def group_by_doc(chunks: Iterable[Chunk]) -> dict[str, list[Chunk]]:
    """``doc_id -> chunks`` in their original order."""
    groups: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        groups.setdefault(chunk.doc_id, []).append(chunk)
    return groups
