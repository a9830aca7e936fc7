"""Benchmark the retrieval backends on the single-hop CUAD validation questions.

    python scripts/bench/retrieval.py                            # all backends, 60 contracts
    python scripts/bench/retrieval.py --backends sqlite_fts bm25s --max-docs 510 --question-docs 100
    python scripts/bench/retrieval.py --no-headers --out outputs/bench/retrieval_no_headers.json

The corpus holds ``--question-docs`` validation contracts (their questions are asked) plus other contracts
up to ``--max-docs``. For each backend: gold-chunk recall@k, hit@k, MRR@k, query latency p50/p95, index
build time and size. Prints a table and writes JSON (default ``outputs/bench/retrieval.json``).
Indexes go to a fresh temporary cache unless ``--cache-dir`` is given, so build times are real builds.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

from agenttune.benchmarks.cuad.corpus import cuad_chunks
from agenttune.benchmarks.cuad.data import load_contracts
from agenttune.benchmarks.cuad.questions import build_single_hop_questions
from agenttune.rag.backends import BACKENDS, make_retriever
from agenttune.rag.questions import QuestionRecord
from agenttune.rag.retriever import Retriever

REPO_ROOT = Path(__file__).resolve().parents[2]


def score(retriever: Retriever, questions: list[QuestionRecord], k: int) -> dict[str, float]:
    """Mean recall@k / hit@k / MRR@k over ``questions`` and the query latency percentiles (ms)."""
    recalls, hits, rranks, latencies = [], [], [], []
    for q in questions:
        started = time.perf_counter()
        ranked = [h.chunk_id for h in retriever.search(q.question, k)]
        latencies.append((time.perf_counter() - started) * 1000)
        gold = set(q.gold_chunk_ids)
        recalls.append(len(gold & set(ranked)) / len(gold))
        hits.append(float(bool(gold & set(ranked))))
        rranks.append(next((1 / rank for rank, c in enumerate(ranked, start=1) if c in gold), 0.0))
    quantiles = statistics.quantiles(latencies, n=20)
    return {
        f"recall@{k}": statistics.fmean(recalls),
        f"hit@{k}": statistics.fmean(hits),
        f"mrr@{k}": statistics.fmean(rranks),
        "latency_p50_ms": statistics.median(latencies),
        "latency_p95_ms": quantiles[18],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--backends", nargs="+", default=["sqlite_fts", "bm25s", "chroma", "hybrid"], choices=sorted(BACKENDS)
    )
    parser.add_argument("--max-docs", type=int, default=60, help="contracts in the corpus")
    parser.add_argument(
        "--question-docs", type=int, default=20, help="validation contracts whose questions are asked"
    )
    parser.add_argument("--k", type=int, default=8)
    parser.add_argument("--chunk-size", type=int, default=1000)
    parser.add_argument("--chunk-overlap", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--headers",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="index chunks under their contract's title and parties (--no-headers: raw chunk text)",
    )
    parser.add_argument("--cache-dir", type=Path, default=None, help="default: a fresh temporary folder")
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "outputs" / "bench" / "retrieval.json")
    args = parser.parse_args()

    chunking = {"chunk_size": args.chunk_size, "chunk_overlap": args.chunk_overlap}
    questions = [
        q
        for q in build_single_hop_questions(load_contracts(), seed=args.seed, **chunking)
        if q.split == "validation"
    ]
    question_docs = list(dict.fromkeys(d for q in questions for d in q.doc_ids))[: args.question_docs]
    questions = [q for q in questions if q.doc_ids[0] in question_docs]
    chunks = cuad_chunks(
        max(args.max_docs, len(question_docs)),
        question_docs,
        seed=args.seed,
        headers=args.headers,
        **chunking,
    )
    docs = len({c.doc_id for c in chunks})
    print(
        f"{len(questions)} questions from {len(question_docs)} contracts; corpus {docs} contracts, {len(chunks)} chunks"
    )

    cache_dir = args.cache_dir or Path(tempfile.mkdtemp(prefix="agenttune-bench-"))
    results = {}
    for backend in args.backends:
        retriever = make_retriever(backend, cache_dir=cache_dir, k=args.k)
        retriever.build(chunks)
        reused = getattr(retriever, "last_build_reused", None)
        if backend == "hybrid":
            reused = all(r.last_build_reused for r in retriever.retrievers.values())
        results[backend] = {
            **score(retriever, questions, args.k),
            "build_s": retriever.last_build_seconds,
            "index_mb": retriever.index_size_bytes() / 1e6,
            "reused_index": reused,
        }
        print(backend, json.dumps(results[backend]))

    k = args.k
    header = f"| backend | recall@{k} | hit@{k} | MRR@{k} | p50 ms | p95 ms | build s | index MB |"
    lines = [header, "|" + " --- |" * 8]
    for name, r in results.items():
        build = f"{r['build_s']:.1f}" + (" (reused)" if r["reused_index"] else "")
        lines.append(
            f"| {name} | {r[f'recall@{k}']:.3f} | {r[f'hit@{k}']:.3f} | {r[f'mrr@{k}']:.3f} | "
            f"{r['latency_p50_ms']:.1f} | {r['latency_p95_ms']:.1f} | {build} | {r['index_mb']:.1f} |"
        )
    table = "\n".join(lines)
    print(table)
    report = {
        "setup": {
            "questions": len(questions),
            "question_docs": len(question_docs),
            "corpus_docs": docs,
            "chunks": len(chunks),
            "k": k,
            **chunking,
            "seed": args.seed,
            "headers": args.headers,
            "hardware": f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPU cores, no GPU",
        },
        "results": results,
        "table": table,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
