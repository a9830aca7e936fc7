"""Character spans ``(doc_id, start, end)``: how much of a gold span a set of passages covers.

The evidence measures of the search agent and LegalBench-RAG's metrics (its paper scores retrieval by the
characters retrieved snippets share with the gold snippets) both reduce to overlaps of character ranges.
Spans are ``[doc_id, start, end)``; overlapping spans of one document are merged before counting, so a
character is counted once however many passages showed it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

Span = Sequence  # (doc_id, start, end)


def merged(spans: Iterable[Span]) -> dict[str, list[tuple[int, int]]]:
    """Per document, the union of the spans as sorted, disjoint ``(start, end)`` ranges.

    >>> merged([("a", 5, 9), ("a", 0, 6), ("b", 1, 2), ("a", 12, 14)])
    {'a': [(0, 9), (12, 14)], 'b': [(1, 2)]}
    """
    by_doc: dict[str, list[tuple[int, int]]] = {}
    for doc, start, end in spans:
        if end > start:
            by_doc.setdefault(str(doc), []).append((int(start), int(end)))
    result = {}
    for doc, ranges in by_doc.items():
        out: list[tuple[int, int]] = []
        for start, end in sorted(ranges):
            if out and start <= out[-1][1]:
                out[-1] = (out[-1][0], max(out[-1][1], end))
            else:
                out.append((start, end))
        result[doc] = out
    return result


def length(spans: Iterable[Span]) -> int:
    """Characters in the union of ``spans``.

    >>> length([("a", 0, 10), ("a", 5, 12), ("b", 0, 3)])
    15
    """
    return sum(end - start for ranges in merged(spans).values() for start, end in ranges)


def overlap(first: Iterable[Span], second: Iterable[Span]) -> int:
    """Characters in both unions.

    >>> overlap([("a", 0, 10)], [("a", 5, 20), ("b", 0, 5)])
    5
    """
    a, b = merged(first), merged(second)
    total = 0
    for doc, ranges in a.items():
        for s1, e1 in ranges:
            for s2, e2 in b.get(doc, []):
                total += max(0, min(e1, e2) - max(s1, s2))
    return total


def recall(gold: Sequence[Span], shown: Iterable[Span]) -> float:
    """Share of the gold spans' characters that ``shown`` covers (1.0 when there is no gold span).

    >>> recall([("a", 0, 10)], [("a", 5, 20)]), recall([], [("a", 0, 1)])
    (0.5, 1.0)
    """
    total = length(gold)
    return overlap(gold, shown) / total if total else 1.0


def precision(gold: Sequence[Span], shown: Sequence[Span]) -> float:
    """Share of the shown characters that lie in a gold span (0.0 when nothing was shown).

    >>> precision([("a", 0, 10)], [("a", 5, 25)]), precision([("a", 0, 10)], [])
    (0.25, 0.0)
    """
    total = length(shown)
    return overlap(gold, shown) / total if total else 0.0


def holds_whole(gold: Iterable[Span], shown: Iterable[Span]) -> bool:
    """Whether one shown span holds a gold span whole (two adjacent passages that together cover it do not).

    >>> holds_whole([("a", 5, 9)], [("a", 0, 10)]), holds_whole([("a", 5, 12)], [("a", 0, 10), ("a", 10, 12)])
    (True, False)
    """
    shown = list(shown)
    return any(
        str(doc) == str(in_doc) and in_start <= start and end <= in_end
        for doc, start, end in gold
        for in_doc, in_start, in_end in shown
    )


def touches(gold: Iterable[Span], shown: Iterable[Span]) -> bool:
    """Whether any shown span shares a character with a gold span.

    >>> touches([("a", 0, 10)], [("a", 9, 12)]), touches([("a", 0, 10)], [("a", 10, 12)])
    (True, False)
    """
    return overlap(gold, shown) > 0
