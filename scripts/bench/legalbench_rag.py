"""LegalBench-RAG retrieval scored as its paper scores it, per corpus: Doc@k and character-span precision and recall
at k = 1, 2, 4, ..., 64 of the query sent straight to the retriever.

    python scripts/bench/legalbench_rag.py                          # the sample, 20 CUAD distractors, bm25s
    python scripts/bench/legalbench_rag.py --backend sqlite_fts --distractors 50

Each corpus of the sample is indexed with ``--distractors`` CUAD contracts (as ``benchmark=legalbench_rag`` does).
Span metrics are means over the queries whose reference answer quotes the source document (the sample has no gold
spans; see :mod:`agenttune.benchmarks.legalbench_rag.data`); Doc@k over all queries. The policy's own searches get the
same metrics from ``python train.py +experiment=legalbench_rag_transfer init_from=<policy>`` (``eval/<corpus>/...``).
Prints a table and writes JSON (default ``outputs/bench/legalbench_rag.json``).
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from agenttune.benchmarks.legalbench_rag.corpus import legalbench_chunks
from agenttune.benchmarks.legalbench_rag.data import load_sample
from agenttune.benchmarks.legalbench_rag.metrics import KS, ranked_scores
from agenttune.rag.backends import BACKENDS, make_retriever
from agenttune.rag.cache import default_cache_dir
from agenttune.tracking.run import hardware

REPO_ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="bm25s", choices=sorted(BACKENDS))
    parser.add_argument("--distractors", type=int, default=20)
    parser.add_argument("--chunk-size", type=int, default=1200)
    parser.add_argument("--chunk-overlap", type=int, default=200)
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "outputs" / "bench" / "legalbench_rag.json")
    args = parser.parse_args()

    results = {}
    for corpus in load_sample():
        chunks = legalbench_chunks(corpus, args.distractors, args.chunk_size, args.chunk_overlap)
        retriever = make_retriever(args.backend, cache_dir=default_cache_dir()).build(chunks)
        rows = [
            ranked_scores(
                [(h.doc_id, h.start, h.end) for h in retriever.search(q.query, max(KS))],
                q.gold_files,
                q.gold_spans,
            )
            for q in corpus.queries
        ]
        results[corpus.name] = {
            "queries": len(rows),
            "queries_with_spans": sum("recall@1" in r for r in rows),
            "documents": len({c.doc_id for c in chunks}),
        } | {
            name: statistics.fmean(r[name] for r in rows if name in r)
            for name in (f"{m}@{k}" for m in ("doc", "precision", "recall") for k in KS)
        }
        print(corpus.name, json.dumps(results[corpus.name]))

    lines = ["| corpus | metric | " + " | ".join(f"@{k}" for k in KS) + " |", "|" + " --- |" * (len(KS) + 2)]
    for name, r in results.items():
        for metric in ("doc", "precision", "recall"):
            lines.append(
                f"| {name} | {metric} | " + " | ".join(f"{r[f'{metric}@{k}']:.3f}" for k in KS) + " |"
            )
    table = "\n".join(lines)
    print(table)
    report = {
        "setup": {
            "backend": args.backend,
            "distractors": args.distractors,
            "chunk_size": args.chunk_size,
            "chunk_overlap": args.chunk_overlap,
            "hardware": hardware(),
        },
        "results": results,
        "table": table,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
