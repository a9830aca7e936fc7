"""Choose the hybrid's fusion on train questions (never the validation questions the retrieval table reports).

    python scripts/bench/fusion.py                                  # 1,000 train questions, full corpus
    python scripts/bench/fusion.py --dense-model all-MiniLM-L6-v2-static

Each question (naming its contract by title and parties) is ranked once by bm25s and once by exact cosine over the
cached chunk embeddings of ``--dense-model`` (``scripts/build_embeddings.py`` fills the cache), then fused offline:
reciprocal-rank fusion over a grid of dense weights and RRF constants, and dense reranking of bm25s's top N
(``rerank_top``). Prints every setting's gold-chunk hit@k and gold-span hit@k, best first, with bm25s and dense alone
as baselines, and writes JSON (default ``outputs/bench/fusion.json``) naming the best fusion by span hit@k;
``scripts/bench/retrieval.py`` reads it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
from pathlib import Path

import numpy as np

from agenttune.benchmarks.cuad.corpus import cuad_chunks
from agenttune.benchmarks.cuad.dataset import cuad_questions
from agenttune.rag import spans
from agenttune.rag.bm25 import Bm25sRetriever
from agenttune.rag.cache import default_cache_dir
from agenttune.rag.chroma import ChromaRetriever
from agenttune.rag.hybrid import reciprocal_rank_fusion
from agenttune.rag.retriever import Hit

REPO_ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=1000, help="random train questions")
    parser.add_argument("--dense-model", default="all-MiniLM-L6-v2-onnx-int8")
    parser.add_argument("--k", type=int, default=8)
    parser.add_argument("--candidates", type=int, default=50, help="hits each ranking contributes")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache-dir", type=Path, default=None, help="default: the project cache")
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "outputs" / "bench" / "fusion.json")
    args = parser.parse_args()

    chunking = {"chunk_size": 1200, "chunk_overlap": 200}
    questions = cuad_questions("single_hop", "train", seed=args.seed, **chunking)
    questions = random.Random(args.seed).sample(questions, min(args.questions, len(questions)))
    chunks = cuad_chunks(None, **chunking)
    cache_dir = args.cache_dir or default_cache_dir()
    lexical = Bm25sRetriever(cache_dir).build(chunks)
    dense = ChromaRetriever(cache_dir, model=args.dense_model)
    vectors = dense.embeddings(chunks)
    query_vectors = dense.encode([q.question for q in questions])
    ids = [c.id for c in chunks]
    index = {c: i for i, c in enumerate(ids)}
    by_id = {c.id: c for c in chunks}

    rankings = []  # per question: bm25s hits, dense hits, bm25s hits reordered by dense cosine
    for q, qv in zip(questions, query_vectors, strict=True):
        bm25 = lexical.search(q.question, args.candidates)
        cosine = vectors @ qv
        top = np.argsort(-cosine)[: args.candidates]
        by_cosine = sorted(bm25, key=lambda h: -cosine[index[h.chunk_id]])
        rankings.append((bm25, [Hit(ids[i], "", float(cosine[i]), "") for i in top], by_cosine))

    def fuse(bm25: list[Hit], dense: list[Hit], by_cosine: list[Hit], weights, rrf_k=60, rerank_top=0):
        """As HybridRetriever.search: RRF of both rankings, or of bm25s's top N and its dense reordering."""
        if rerank_top:
            top = bm25[:rerank_top]
            ranked = {"bm25s": top, "chroma": [h for h in by_cosine if h in top]}
        else:
            ranked = {"bm25s": bm25, "chroma": dense}
        return [h.chunk_id for h in reciprocal_rank_fusion(ranked, weights, rrf_k)]

    def score(fused: list[list[str]]) -> dict[str, float]:
        hit, span = [], []
        for q, ranked in zip(questions, fused, strict=True):
            top = ranked[: args.k]
            hit.append(bool(set(q.gold_chunk_ids) & set(top)))
            span.append(
                spans.touches(q.gold_spans, [(by_id[c].doc_id, by_id[c].start, by_id[c].end) for c in top])
            )
        return {f"hit@{args.k}": float(np.mean(hit)), f"span_hit@{args.k}": float(np.mean(span))}

    settings = {"bm25s": {"weights": {"chroma": 0.0}}, "dense": {"weights": {"bm25s": 0.0}}}
    for weight in (0.25, 0.5, 0.75, 1.0):
        for rrf_k in (5, 20, 60):
            settings[f"rrf dense weight {weight}, k {rrf_k}"] = {
                "weights": {"chroma": weight},
                "rrf_k": rrf_k,
            }
    for top in (16, 32, 50):
        for weight in (0.5, 1.0, 2.0):
            settings[f"rerank bm25s top {top}, dense weight {weight}"] = {
                "weights": {"chroma": weight}, "rrf_k": 5, "rerank_top": top,
            }  # fmt: skip
    rows = {}
    for name, params in settings.items():
        fused = [fuse(*ranking, **params) for ranking in rankings]
        rows[name] = {"params": params, **score(fused)}
    order = sorted(rows, key=lambda n: -rows[n][f"span_hit@{args.k}"])
    best = next(n for n in order if n not in ("bm25s", "dense"))  # the two single rankings are the baselines
    lines = [f"| fusion (train questions) | hit@{args.k} | span hit@{args.k} |", "| --- | --- | --- |"]
    lines += [
        f"| {n} | {rows[n][f'hit@{args.k}']:.3f} | {rows[n][f'span_hit@{args.k}']:.3f} |" for n in order
    ]
    table = "\n".join(lines)
    print(table)
    print("best fusion:", best)
    report = {
        "setup": {
            "split": "train",
            "questions": len(questions),
            "chunks": len(chunks),
            "dense_model": args.dense_model,
            "candidates": args.candidates,
            "k": args.k,
            "seed": args.seed,
            "hardware": f"{platform.machine()}, {os.cpu_count()} CPU cores, no GPU",
        },
        "best": {"name": best, **rows[best]},
        "settings": rows,
        "table": table,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
