"""One entry point for a CUAD search run: its questions, its corpus chunks and its dataset rows.

The questions' gold chunk ids hold only under the chunking they were built with, so both functions take
the same ``chunk_size`` / ``chunk_overlap``; question sets read from disk are checked against it.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from agenttune.benchmarks.cuad.corpus import cuad_chunks
from agenttune.benchmarks.cuad.data import load_contracts
from agenttune.benchmarks.cuad.graph import TEMPLATES, build_cuad_graph
from agenttune.benchmarks.cuad.questions import build_single_hop_questions
from agenttune.rag.chunking import Chunk, chunk_text
from agenttune.rag.questions import QuestionRecord, read_jsonl
from agenttune.rag.synthesis.generators import TemplateGenerator
from agenttune.rag.synthesis.pipeline import SynthesisConfig, synthesize

Kind = Literal["single_hop", "multi_hop"]
Split = Literal["train", "validation", "all"]


def _read_built(
    questions_dir: Path, kind: Kind, split: Split, chunk_size: int, chunk_overlap: int
) -> list[QuestionRecord]:
    manifest = json.loads((questions_dir / "manifest.json").read_text())
    built = (manifest.get("chunk_size"), manifest.get("chunk_overlap"))
    if built != (chunk_size, chunk_overlap):
        raise ValueError(
            f"{questions_dir} was built with chunk_size/chunk_overlap {built}, not {(chunk_size, chunk_overlap)}: "
            "rebuild it with scripts/build_cuad_questions.py or pass the matching chunking"
        )
    folder = questions_dir / kind if kind == "single_hop" else questions_dir / kind / "05_split"
    names = ["train", "validation"] if split == "all" else [split]
    return [r for name in names for r in read_jsonl(folder / f"{name}.jsonl")]


def cuad_questions(
    kind: Kind = "single_hop",
    split: Split = "train",
    questions_dir: str | Path | None = None,
    chunk_size: int = 1000,
    chunk_overlap: int = 200,
    limit: int | None = None,
    val_fraction: float = 0.2,
    seed: int = 0,
    style: str = "title_parties",
) -> list[QuestionRecord]:
    """Questions of one split: read from ``questions_dir`` (the output of ``scripts/build_cuad_questions.py``)
    or, when it is None, built in-process (single-hop in seconds, naming contracts in ``style``; multi-hop in
    well under a minute). ``limit`` keeps the first questions in id order, so a run's subset is stable. Multi-hop
    questions get their gold chunks' character ranges as ``gold_spans`` (their evidence is whole passages)."""
    if kind not in ("single_hop", "multi_hop"):
        raise ValueError(f"unknown question set {kind!r}; choose single_hop or multi_hop")
    if questions_dir is not None:
        records = _read_built(Path(questions_dir), kind, split, chunk_size, chunk_overlap)
    elif kind == "single_hop":
        records = build_single_hop_questions(
            load_contracts(), chunk_size, chunk_overlap, val_fraction, seed, style=style
        )
    else:
        graph = build_cuad_graph(load_contracts(), chunk_size, chunk_overlap)
        with tempfile.TemporaryDirectory() as scratch:
            config = SynthesisConfig(val_fraction=val_fraction, seed=seed)
            records = synthesize(graph, TEMPLATES, TemplateGenerator(TEMPLATES), Path(scratch), config)
    records = sorted((r for r in records if split == "all" or r.split == split), key=lambda r: r.id)
    records = records[:limit] if limit is not None else records
    return with_chunk_spans(records, chunk_size, chunk_overlap) if kind == "multi_hop" else records


def with_chunk_spans(
    records: Sequence[QuestionRecord], chunk_size: int, chunk_overlap: int
) -> list[QuestionRecord]:
    """``records`` with every empty ``gold_spans`` set to the character ranges of its gold chunks."""
    texts = {c.doc_id: c.text for c in load_contracts()}
    ranges: dict[str, list] = {}
    for doc_id in {d for r in records if not r.gold_spans for d in r.doc_ids}:
        ranges |= {
            c.id: [doc_id, c.start, c.end]
            for c in chunk_text(doc_id, texts[doc_id], chunk_size, chunk_overlap)
        }
    for record in records:
        if not record.gold_spans:
            record.gold_spans = [ranges[c] for c in record.gold_chunk_ids]
    return list(records)


def corpus_for(
    questions: Sequence[QuestionRecord],
    max_docs: int | None = None,
    chunk_size: int = 1000,
    chunk_overlap: int = 200,
    seed: int = 0,
    headers: bool = True,
) -> list[Chunk]:
    """The search corpus of a run: every contract the questions need, topped up with others to ``max_docs``
    (None: all 510); ``headers`` indexes each chunk under its contract's title and parties."""
    required = list(dict.fromkeys(d for q in questions for d in q.doc_ids))
    return cuad_chunks(max_docs, required, chunk_size, chunk_overlap, seed, headers)


def dataset_rows(questions: Sequence[QuestionRecord]) -> list[dict]:
    """One row per question with the columns the CUAD rewards read (``answer``, ``answer_aliases``,
    ``gold_chunk_ids``, ``hops``) plus ``id``, ``question``, ``doc_ids`` and ``category``."""
    return [
        {
            "id": q.id,
            "question": q.question,
            "answer": q.answer,
            "answer_aliases": q.answer_aliases,
            "gold_chunk_ids": q.gold_chunk_ids,
            "hops": q.hops,
            "doc_ids": q.doc_ids,
            "category": q.category,
        }
        for q in questions
    ]
