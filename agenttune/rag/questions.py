"""The question record every question set in the project is written as, and its JSONL / manifest I/O."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path


@dataclass
class QuestionRecord:
    """A question whose answer needs evidence from a search corpus.

    ``gold_chunk_ids`` are the chunks that hold the gold quotes under the chunking the set was built with;
    ``gold_spans`` (``[doc_id, start, end]``) keep the quotes' offsets so the chunk ids can be recomputed
    for another chunking. ``answer_aliases`` are further answers a grader accepts (a reward takes the best
    match over ``[answer, *answer_aliases]``).
    """

    id: str
    question: str
    answer: str
    gold_quotes: list[str]
    gold_chunk_ids: list[str]
    doc_ids: list[str]
    hops: int
    category: str
    split: str = ""
    answer_aliases: list[str] = field(default_factory=list)
    gold_spans: list[list] = field(default_factory=list)
    difficulty: str = ""
    meta: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)


def write_jsonl(records: Iterable[QuestionRecord], path: Path) -> Path:
    """Write one JSON object a line; creates the parent folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for record in records:
            f.write(json.dumps(record.to_dict(), ensure_ascii=False) + "\n")
    return path


def read_jsonl(path: Path) -> list[QuestionRecord]:
    """Read records written by :func:`write_jsonl`."""
    with Path(path).open(encoding="utf-8") as f:
        return [QuestionRecord(**json.loads(line)) for line in f if line.strip()]


def counts(records: Sequence[QuestionRecord]) -> dict:
    """Counts by split, hop count, category and difficulty, for a manifest."""
    return {
        "total": len(records),
        "by_split": dict(Counter(r.split for r in records)),
        "by_hops": {str(k): v for k, v in sorted(Counter(r.hops for r in records).items())},
        "by_category": dict(Counter(r.category for r in records).most_common()),
        "by_difficulty": dict(Counter(r.difficulty for r in records)),
        "docs": len({d for r in records for d in r.doc_ids}),
    }


def write_manifest(folder: Path, stage: str, **fields) -> Path:
    """Write ``<folder>/manifest.json``: the stage name plus ``fields`` (counts, parameters, rejections)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "manifest.json"
    path.write_text(json.dumps({"stage": stage, **fields}, indent=2, ensure_ascii=False))
    return path
