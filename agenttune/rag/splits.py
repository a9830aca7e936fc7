"""Train/validation splits that share no gold evidence: questions linked by a shared passage stay together."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Literal

from agenttune.rag.questions import QuestionRecord


def _stable_unit_interval(text: str, seed: int) -> float:
    digest = hashlib.sha256(f"{seed}:{text}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def _components(records: Sequence[QuestionRecord], by: str) -> list[list[int]]:
    """Indices of records grouped into connected components over shared gold chunks (or docs)."""
    parent = list(range(len(records)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[str, int] = {}
    for i, record in enumerate(records):
        for key in record.gold_chunk_ids if by == "chunks" else record.doc_ids:
            if key in owner:
                parent[find(i)] = find(owner[key])
            else:
                owner[key] = i
    groups: dict[int, list[int]] = {}
    for i in range(len(records)):
        groups.setdefault(find(i), []).append(i)
    return list(groups.values())


def assign_splits(
    records: Sequence[QuestionRecord],
    val_fraction: float = 0.2,
    seed: int = 0,
    by: Literal["chunks", "docs"] = "chunks",
) -> list[QuestionRecord]:
    """Set each record's ``split`` to ``"train"`` or ``"validation"`` so no gold chunk (``by="chunks"``)
    or no document (``by="docs"``) is shared across splits. Components go to validation by a seeded hash
    until it holds about ``val_fraction`` of the records; returns the records."""
    components = _components(records, by)
    components.sort(key=lambda c: _stable_unit_interval(records[c[0]].id, seed))
    target, in_val = val_fraction * len(records), 0
    for component in components:
        split = "validation" if in_val + len(component) / 2 <= target else "train"
        in_val += len(component) if split == "validation" else 0
        for i in component:
            records[i].split = split
    return list(records)


def shared_gold(records: Sequence[QuestionRecord]) -> set[str]:
    """Gold chunk ids that occur in more than one split (empty for a split made by :func:`assign_splits`)."""
    seen: dict[str, set[str]] = {}
    for record in records:
        for chunk_id in record.gold_chunk_ids:
            seen.setdefault(chunk_id, set()).add(record.split)
    return {chunk_id for chunk_id, splits in seen.items() if len(splits) > 1}
