"""Choose the hybrid's fusion on train questions, then report the choice on the validation questions, full corpus.

    python scripts/bench/fusion.py                                  # 300 train questions choose, all validation report
    python scripts/bench/fusion.py --rerank-only --candidates 16    # only bm25s candidates need embeddings

Every question (naming its contract by title and parties) is ranked by bm25s over all 510 contracts and by exact
cosine over the chunk embeddings of ``--dense-model`` (the cache ``scripts/build_embeddings.py`` fills; missing
vectors are encoded into it), then fused offline as :class:`~agenttune.rag.hybrid.HybridRetriever` fuses:
reciprocal-rank fusion over a grid of dense weights and RRF constants, and dense reranking of bm25s's top N
(``rerank_top``). The best fusion by span hit@k on the train questions is then scored once on the validation
questions beside bm25s (and dense) alone. ``--rerank-only`` scores only reranking, which needs the embeddings of
bm25s's candidates alone (a few thousand chunks instead of 27,049). Prints both tables and writes JSON (default
``outputs/bench/fusion.json``); ``scripts/bench/retrieval.py`` reads the chosen parameters from it.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
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
from agenttune.tracking.run import hardware

REPO_ROOT = Path(__file__).resolve().parents[2]


def fuse(
    bm25: list[Hit], dense: list[Hit], by_cosine: list[Hit], weights, rrf_k=60, rerank_top=0
) -> list[str]:
    """As HybridRetriever.search: RRF of both rankings, or of bm25s's top N and its dense reordering."""
    if rerank_top:
        keep = {h.chunk_id for h in bm25[:rerank_top]}
        ranked = {"bm25s": bm25[:rerank_top], "chroma": [h for h in by_cosine if h.chunk_id in keep]}
    else:
        ranked = {"bm25s": bm25, "chroma": dense}
    return [h.chunk_id for h in reciprocal_rank_fusion(ranked, weights, rrf_k)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train-questions", type=int, default=300, help="random train questions that choose")
    parser.add_argument("--validation-questions", type=int, default=None, help="default: all")
    parser.add_argument("--dense-model", default="all-MiniLM-L6-v2-onnx-int8")
    parser.add_argument("--k", type=int, default=8)
    parser.add_argument("--candidates", type=int, default=50, help="hits each ranking contributes")
    parser.add_argument("--rerank-only", action="store_true", help="only dense reranking of bm25s candidates")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache-dir", type=Path, default=None, help="default: the project cache")
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "outputs" / "bench" / "fusion.json")
    args = parser.parse_args()

    chunking = {"chunk_size": 1200, "chunk_overlap": 200}
    train = cuad_questions("single_hop", "train", seed=args.seed, **chunking)
    questions = {
        "train": random.Random(args.seed).sample(train, min(args.train_questions, len(train))),
        "validation": cuad_questions(
            "single_hop", "validation", limit=args.validation_questions, seed=args.seed, **chunking
        ),
    }
    chunks = cuad_chunks(None, **chunking)
    by_id = {c.id: c for c in chunks}
    cache_dir = args.cache_dir or default_cache_dir()
    lexical = Bm25sRetriever(cache_dir).build(chunks)
    dense = ChromaRetriever(cache_dir, model=args.dense_model)
    started = time.perf_counter()

    def rankings(split: str) -> list[tuple[list[Hit], list[Hit], list[Hit]]]:
        """Per question: bm25s hits, dense hits (empty with --rerank-only), bm25s hits by dense cosine."""
        qs = questions[split]
        bm25 = [lexical.search(q.question, args.candidates) for q in qs]
        pool = (
            chunks
            if not args.rerank_only
            else [by_id[c] for c in dict.fromkeys(h.chunk_id for b in bm25 for h in b)]
        )
        vectors = dense.embeddings(pool)
        row = {c.id: i for i, c in enumerate(pool)}
        out = []
        for hits, qv in zip(bm25, dense.encode([q.question for q in qs]), strict=True):
            cosine = vectors @ qv
            top = [] if args.rerank_only else np.argsort(-cosine)[: args.candidates]
            by_cosine = sorted(hits, key=lambda h: -cosine[row[h.chunk_id]])
            out.append((hits, [Hit(pool[i].id, "", float(cosine[i]), "") for i in top], by_cosine))
        return out

    def score(split: str, ranked: list, params: dict) -> dict[str, float]:
        hit, span = [], []
        for q, ranking in zip(questions[split], ranked, strict=True):
            top = fuse(*ranking, **params)[: args.k]
            hit.append(bool(set(q.gold_chunk_ids) & set(top)))
            shown = [(by_id[c].doc_id, by_id[c].start, by_id[c].end) for c in top]
            span.append(spans.touches(q.gold_spans, shown))
        return {f"hit@{args.k}": float(np.mean(hit)), f"span_hit@{args.k}": float(np.mean(span))}

    baselines = {"bm25s": {"weights": {"chroma": 0.0}}}
    settings = {}
    if not args.rerank_only:
        baselines["dense"] = {"weights": {"bm25s": 0.0}}
        for weight in (0.25, 0.5, 0.75, 1.0):
            for rrf_k in (5, 20, 60):
                settings[f"rrf, dense weight {weight}, k {rrf_k}"] = {
                    "weights": {"chroma": weight},
                    "rrf_k": rrf_k,
                }
    for top in (t for t in (12, 16, 24, 32, 50) if t <= args.candidates):
        settings[f"rerank bm25s top {top} by dense only"] = {"weights": {"bm25s": 0.0}, "rerank_top": top}
        for weight in (0.5, 1.0, 2.0):
            settings[f"rerank bm25s top {top}, dense weight {weight}, k 5"] = {
                "weights": {"chroma": weight}, "rrf_k": 5, "rerank_top": top,
            }  # fmt: skip

    ranked = rankings("train")
    train_rows = {
        name: {"params": p, **score("train", ranked, p)} for name, p in {**baselines, **settings}.items()
    }
    span_key = f"span_hit@{args.k}"
    best = max(settings, key=lambda n: train_rows[n][span_key])
    ranked = rankings("validation")
    validation_rows = {
        name: score("validation", ranked, p) for name, p in {**baselines, best: settings[best]}.items()
    }
    seconds = time.perf_counter() - started

    def table(title: str, rows: dict) -> str:
        lines = [f"| {title} | hit@{args.k} | span hit@{args.k} |", "| --- | --- | --- |"]
        order = sorted(rows, key=lambda n: -rows[n][span_key])
        return "\n".join(
            lines + [f"| {n} | {rows[n][f'hit@{args.k}']:.3f} | {rows[n][span_key]:.3f} |" for n in order]
        )

    tables = table(f"fusion ({len(questions['train'])} train questions)", train_rows)
    tables += "\n\n" + table(
        f"chosen on train ({len(questions['validation'])} validation questions)", validation_rows
    )
    print(tables)
    print("best fusion on train:", best)
    report = {
        "setup": {
            "train_questions": len(questions["train"]),
            "validation_questions": len(questions["validation"]),
            "chunks": len(chunks),
            "dense_model": args.dense_model,
            "candidates": args.candidates,
            "rerank_only": args.rerank_only,
            "k": args.k,
            "seed": args.seed,
            "seconds": seconds,
            "hardware": hardware(),
            "load_average": os.getloadavg()[0],
        },
        "best": {"name": best, "params": settings[best]},
        "train": train_rows,
        "validation": validation_rows,
        "table": tables,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
