"""Encode the CUAD search corpus's chunks with all-MiniLM-L6-v2 into the embedding cache, once, with a progress bar.

    python scripts/build_embeddings.py                     # all 510 contracts, the benchmark's chunking
    python scripts/build_embeddings.py --model all-MiniLM-L6-v2-onnx-int8 # MiniLM on ONNX Runtime, int8
    python scripts/build_embeddings.py --model all-MiniLM-L6-v2-static   # the faster static distillation
    python scripts/build_embeddings.py --max-docs 60 --batch-size 128

Dense and hybrid retrieval (``retrieval=chroma``, ``retrieval=hybrid``) then build their index from the cached
vectors instead of encoding. The cache is resumable: stop it and run it again, and it encodes only what is missing.
Prints and writes (``outputs/bench/embeddings.json``) the chunks encoded, the time, chunks per second and the load
average it ran under (the machine may be shared).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from agenttune.benchmarks.cuad.corpus import cuad_chunks
from agenttune.rag.cache import default_cache_dir
from agenttune.rag.chroma import ChromaRetriever
from agenttune.rag.embeddings import DEFAULT_MODEL, ONNX_MODEL, STATIC_MODEL, distill_static_model
from agenttune.tracking.run import hardware

REPO_ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-docs", type=int, default=None, help="contracts to encode (default: all 510)")
    parser.add_argument("--chunk-size", type=int, default=1200)
    parser.add_argument("--chunk-overlap", type=int, default=200)
    parser.add_argument(
        "--model", default=DEFAULT_MODEL, help=f"{DEFAULT_MODEL}, {ONNX_MODEL} or {STATIC_MODEL}"
    )
    parser.add_argument("--batch-size", type=int, default=64, help="chunks per forward pass")
    parser.add_argument(
        "--cache-dir", type=Path, default=None, help="default: $AGENTTUNE_CACHE_DIR or .cache"
    )
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "outputs" / "bench" / "embeddings.json")
    args = parser.parse_args()

    chunks = cuad_chunks(args.max_docs, chunk_size=args.chunk_size, chunk_overlap=args.chunk_overlap)
    cache_dir = args.cache_dir or default_cache_dir()
    load_before = os.getloadavg()
    started = time.perf_counter()
    if args.model == STATIC_MODEL:
        distill_static_model(cache_dir)
    distilled = time.perf_counter() - started
    dense = ChromaRetriever(cache_dir=cache_dir, model=args.model, batch_size=args.batch_size)
    started = time.perf_counter()
    vectors = dense.embeddings(chunks)
    seconds = time.perf_counter() - started
    report = {
        "model": args.model,
        "distill_seconds": round(distilled, 1),
        "chunks": len(chunks),
        "contracts": len({c.doc_id for c in chunks}),
        "dimensions": int(vectors.shape[1]),
        "seconds": round(seconds, 1),
        "chunks_per_second": round(len(chunks) / seconds, 2),
        "load_average_before_after": [round(load_before[0], 1), round(os.getloadavg()[0], 1)],
        "hardware": hardware(),
    }
    print(json.dumps(report))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
