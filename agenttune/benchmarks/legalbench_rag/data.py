"""Load LegalBench-RAG query sets in either layout.

- the sample beside the project (``<data_dir>/legalbench_rag_sample``): one CSV per corpus with columns
  ``prompt``, ``expected completion``, ``source_file`` (relative to ``knowledge-base/``);
- the official release: ``benchmarks/<corpus>.json`` holding ``{"tests": [{"query", "snippets": [{"file_path",
  "span": [start, end]}]}]}`` and a ``corpus/`` folder the file paths are relative to.

Either way a corpus becomes a :class:`LegalBenchSet`: its queries and the text of every document. The sample has no
gold spans; each query's ``gold_spans`` are the passages its reference answer quotes that occur in the source
document (:func:`quoted_spans`, whitespace aside), so span metrics are scored on the queries that have some
(about half to four fifths of each corpus) and Doc@k on all.
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from agenttune.benchmarks.cuad.data import HOW_TO_GET_DATA, data_dir

SAMPLE_FOLDER = "legalbench_rag_sample"
QUOTED = re.compile(r"[“\"]([^”\"]+)[”\"]")
ELLIPSIS = re.compile(r"…|\.\.\.|\[[^\]]*\]")
MIN_QUOTE_WORDS = 4


def quoted_spans(answer: str, document: str) -> list[tuple[int, int]]:
    """``(start, end)`` in ``document`` of each passage ``answer`` quotes (quotes split at ellipses, pieces of at
    least :data:`MIN_QUOTE_WORDS` words), matched word for word with any whitespace between words.

    >>> quoted_spans('It says “shall be governed by  the laws of Nevada…”.', "It shall be governed by the laws of Nevada.")
    [(3, 42)]
    """
    found = []
    for quote in QUOTED.findall(answer):
        for piece in ELLIPSIS.split(quote):
            piece = piece.strip(" .,;:'’‘()-\n")
            if len(re.findall(r"\w+", piece)) < MIN_QUOTE_WORDS:
                continue
            tokens = re.findall(r"\w+|[^\w\s]", piece)
            match = re.search(r"\s*".join(re.escape(t) for t in tokens), document)
            if match:
                found.append((match.start(), match.end()))
    return sorted(set(found))


@dataclass
class LegalBenchQuery:
    """A query; ``gold_files`` are document ids (paths relative to the corpus folder)."""

    id: str
    query: str
    gold_files: list[str]
    gold_spans: list[tuple[str, int, int]] = field(default_factory=list)
    reference_answer: str = ""


@dataclass
class LegalBenchSet:
    """One corpus (``cuad``, ``maud``, ``contractnli``, ``privacy_qa``): queries and ``doc_id -> text``."""

    name: str
    queries: list[LegalBenchQuery]
    documents: dict[str, str]


def _query_id(name: str, i: int, query: str) -> str:
    return f"{name}-{i:04d}-{hashlib.sha1(query.encode()).hexdigest()[:8]}"


def _read_documents(root: Path, files: set[str]) -> dict[str, str]:
    missing = [f for f in sorted(files) if not (root / f).is_file()]
    if missing:
        raise FileNotFoundError(f"{len(missing)} source documents missing under {root}: {missing[:3]}")
    return {f: (root / f).read_text(encoding="utf-8", errors="replace") for f in sorted(files)}


def load_sample(root: str | Path | None = None, corpora: list[str] | None = None) -> list[LegalBenchSet]:
    """The CSV sample, one set per ``<corpus>.csv`` (all of them unless ``corpora`` names some)."""
    root = Path(root) if root else data_dir() / SAMPLE_FOLDER
    if not (root / "knowledge-base").is_dir():
        raise FileNotFoundError(f"{root}/knowledge-base is missing. {HOW_TO_GET_DATA}")
    sets = []
    for path in sorted(root.glob("*.csv")):
        if corpora and path.stem not in corpora:
            continue
        with path.open(encoding="utf-8", newline="") as f:
            rows = list(csv.DictReader(f))
        documents = _read_documents(root / "knowledge-base", {row["source_file"] for row in rows})
        queries = [
            LegalBenchQuery(
                _query_id(path.stem, i, row["prompt"]),
                row["prompt"],
                [row["source_file"]],
                [
                    (row["source_file"], start, end)
                    for start, end in quoted_spans(row["expected completion"], documents[row["source_file"]])
                ],
                reference_answer=row["expected completion"],
            )
            for i, row in enumerate(rows)
        ]
        sets.append(LegalBenchSet(path.stem, queries, documents))
    return sets


def load_official(root: str | Path, corpora: list[str] | None = None) -> list[LegalBenchSet]:
    """The official layout under ``root`` (``benchmarks/*.json`` and ``corpus/``); documents of a set are
    the files its snippets cite."""
    root = Path(root)
    sets = []
    for path in sorted((root / "benchmarks").glob("*.json")):
        if corpora and path.stem not in corpora:
            continue
        tests = json.loads(path.read_text(encoding="utf-8"))["tests"]
        queries = []
        for i, test in enumerate(tests):
            spans = [(s["file_path"], int(s["span"][0]), int(s["span"][1])) for s in test["snippets"]]
            files = list(dict.fromkeys(f for f, _, _ in spans))
            queries.append(
                LegalBenchQuery(_query_id(path.stem, i, test["query"]), test["query"], files, spans)
            )
        documents = _read_documents(root / "corpus", {f for q in queries for f in q.gold_files})
        sets.append(LegalBenchSet(path.stem, queries, documents))
    return sets
