"""The multi-hop synthesis pipeline: paths -> questions -> checks -> balance -> split.

Each stage writes its records as JSONL and a ``manifest.json`` with counts into its own folder under
``out_dir`` (``01_paths`` ... ``05_split``), so every drop between stages can be inspected.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path as FsPath

from agenttune.progress import progress
from agenttune.rag.questions import QuestionRecord, counts, write_jsonl, write_manifest
from agenttune.rag.splits import assign_splits, shared_gold
from agenttune.rag.synthesis.checks import ClosedBook, has_unique_answer, needs_retrieval, unnecessary_hops
from agenttune.rag.synthesis.generators import PathTemplate, QuestionGenerator
from agenttune.rag.synthesis.graph import EvidenceGraph
from agenttune.rag.synthesis.paths import Path, sample_paths
from agenttune.rewards.answer import normalize_answer


@dataclass(frozen=True)
class SynthesisConfig:
    """Knobs of :func:`synthesize`: hop range, paths sampled per template, bucket cap, split and seed."""

    min_hops: int = 2
    max_hops: int = 5
    max_paths_per_template: int = 2000
    max_per_bucket: int = 200
    val_fraction: float = 0.2
    seed: int = 0


def _chunk_order(chunk_id: str) -> tuple[str, int]:
    doc, _, index = chunk_id.rpartition("#")
    return doc, int(index) if index.isdigit() else 0


def gold_chunks(path: Path, graph: EvidenceGraph, answer: str) -> list[str]:
    """One chunk per hop (the earliest stating it), plus the answer node's own evidence when no hop chunk
    contains the answer text."""
    gold = list(dict.fromkeys(min(edge.evidence, key=_chunk_order) for edge in path.edges))
    target = normalize_answer(answer)
    if not any(target in normalize_answer(graph.chunk_text[c]) for c in gold):
        gold.extend(c for c in graph.nodes[path.end].evidence if c not in gold)
    return gold


def lexical_difficulty(question: str, chunk_texts: Sequence[str]) -> str:
    """``easy`` / ``medium`` / ``hard`` by how many of the question's content words the least-matching
    gold chunk contains (>= 50 %, >= 20 %, less)."""
    words = {w for w in re.findall(r"[a-z0-9]{4,}", question.lower())}
    if not words or not chunk_texts:
        return "hard"
    weakest = min(len(words & set(re.findall(r"[a-z0-9]{4,}", t.lower()))) / len(words) for t in chunk_texts)
    return "easy" if weakest >= 0.5 else "medium" if weakest >= 0.2 else "hard"


def _record(
    path: Path, graph: EvidenceGraph, question: str, answer: str, aliases, template: str
) -> QuestionRecord:
    gold = gold_chunks(path, graph, answer)
    key = f"{template}|{'>'.join(path.node_ids)}"
    return QuestionRecord(
        id="cuadmh-" + hashlib.sha1(key.encode()).hexdigest()[:12],
        question=question,
        answer=answer,
        gold_quotes=[graph.nodes[n].label for n in path.node_ids[1:]],
        gold_chunk_ids=gold,
        doc_ids=list(dict.fromkeys(graph.chunk_doc[c] for c in gold)),
        hops=path.hops,
        category=template,
        answer_aliases=list(aliases),
        difficulty=lexical_difficulty(question, [graph.chunk_text[c] for c in gold]),
        meta={"path": path.node_ids, "relations": list(path.relations)},
    )


def majority_baseline(records: Sequence[QuestionRecord]) -> dict[str, str]:
    """Per template (``category``), the most common answer: what a closed-book guesser would say."""
    by_template: dict[str, Counter] = {}
    for r in records:
        by_template.setdefault(r.category, Counter())[normalize_answer(r.answer)] += 1
    return {t: c.most_common(1)[0][0] for t, c in by_template.items()}


def balance(records: Sequence[QuestionRecord], max_per_bucket: int, seed: int) -> list[QuestionRecord]:
    """At most ``max_per_bucket`` records per (hops, difficulty) bucket, chosen with a seeded shuffle."""
    shuffled = list(records)
    random.Random(seed).shuffle(shuffled)
    taken: Counter = Counter()
    kept = []
    for r in shuffled:
        if taken[(r.hops, r.difficulty)] < max_per_bucket:
            taken[(r.hops, r.difficulty)] += 1
            kept.append(r)
    return sorted(kept, key=lambda r: (r.hops, r.id))


def synthesize(
    graph: EvidenceGraph,
    templates: Sequence[PathTemplate],
    generator: QuestionGenerator,
    out_dir: FsPath,
    config: SynthesisConfig = SynthesisConfig(),
    closed_book: ClosedBook | None = None,
) -> list[QuestionRecord]:
    """Run every stage, writing each one's output under ``out_dir``; returns the split records."""
    templates = [t for t in templates if config.min_hops <= len(t.relations) <= config.max_hops]
    paths = [
        p
        for t in templates
        for p in sample_paths(graph, t.start_type, t.relations, config.max_paths_per_template, config.seed)
    ]
    stage = out_dir / "01_paths"
    stage.mkdir(parents=True, exist_ok=True)
    with (stage / "paths.jsonl").open("w", encoding="utf-8") as f:
        for p in paths:
            f.write(json.dumps({"nodes": p.node_ids, "relations": list(p.relations)}) + "\n")
    by_template = Counter(">".join(p.relations) for p in paths)
    write_manifest(stage, "paths", total=len(paths), by_relations=dict(by_template))

    generated = []
    for p in progress(paths, desc="generate questions", unit="path"):
        if (q := generator(p, graph)) is not None:
            generated.append((p, _record(p, graph, q.question, q.answer, q.answer_aliases, q.template)))
    write_jsonl([r for _, r in generated], out_dir / "02_generated" / "questions.jsonl")
    write_manifest(out_dir / "02_generated", "generated", **counts([r for _, r in generated]))

    guesses = majority_baseline([r for _, r in generated])
    rejected: Counter = Counter()
    checked = []
    for p, r in generated:
        if not has_unique_answer(graph, p):
            rejected["ambiguous_answer"] += 1
        elif unnecessary_hops(graph, p):
            rejected["unnecessary_hop"] += 1
        elif not needs_retrieval(r.question, r.answer, closed_book or (lambda _q, t=r.category: guesses[t])):
            rejected["answerable_without_retrieval"] += 1
        else:
            checked.append(r)
    checked = list({r.id: r for r in checked}.values())
    write_jsonl(checked, out_dir / "03_checked" / "questions.jsonl")
    write_manifest(out_dir / "03_checked", "checked", **counts(checked), rejected=dict(rejected))

    balanced = balance(checked, config.max_per_bucket, config.seed)
    write_jsonl(balanced, out_dir / "04_balanced" / "questions.jsonl")
    write_manifest(
        out_dir / "04_balanced", "balanced", **counts(balanced), max_per_bucket=config.max_per_bucket
    )

    split = assign_splits(balanced, config.val_fraction, config.seed, by="chunks")
    for name in ("train", "validation"):
        write_jsonl([r for r in split if r.split == name], out_dir / "05_split" / f"{name}.jsonl")
    write_manifest(out_dir / "05_split", "split", **counts(split), shared_gold_chunks=len(shared_gold(split)))
    return split
