"""all-MiniLM-L6-v2 encoding speed on CPU, path by path, on a random sample of CUAD chunks.

    python scripts/bench/encoders.py                      # 256 chunks, 1 thread
    python scripts/bench/encoders.py --chunks 512 --threads 2

Paths: sentence-transformers (PyTorch fp32) with batches in corpus order (the reference vectors) and with batches
sorted by length; the same with 128 tokens kept instead of 256; the model exported to ONNX Runtime (fp32) and
int8-quantised (``all-MiniLM-L6-v2-onnx-int8``, :mod:`agenttune.rag.onnx_encoder`). For each: chunks per second and
the cosine of its vectors to the reference (mean and minimum). Also the chunks' token counts (how many a
128- or 256-token window cuts). Prints a table and writes JSON (default ``outputs/bench/encoders.json``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from pathlib import Path

import numpy as np
import torch

from agenttune.benchmarks.cuad.corpus import cuad_chunks
from agenttune.rag.cache import default_cache_dir
from agenttune.rag.embeddings import bundled_model_path, load_embedder
from agenttune.rag.onnx_encoder import OnnxEmbedder, export_onnx_model
from agenttune.tracking.run import hardware

REPO_ROOT = Path(__file__).resolve().parents[2]


def timed(encode, texts: list[str]) -> tuple[np.ndarray, float]:
    started = time.perf_counter()
    vectors = encode(texts)
    return vectors, len(texts) / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=256, help="random chunks of the full corpus encoded")
    parser.add_argument("--threads", type=int, default=1, help="CPU threads (1 when the machine is shared)")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache-dir", type=Path, default=None, help="default: the project cache")
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "outputs" / "bench" / "encoders.json")
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    chunks = cuad_chunks(None, chunk_size=1200, chunk_overlap=200)
    texts = [c.index_text for c in random.Random(args.seed).sample(chunks, args.chunks)]
    source = bundled_model_path()
    model = load_embedder()
    tokens = np.array([len(ids) for ids in model.tokenizer(texts)["input_ids"]])
    cache_dir = args.cache_dir or default_cache_dir()
    started = time.perf_counter()
    onnx_fp32 = export_onnx_model(source, cache_dir, quantize=False)
    onnx_int8 = export_onnx_model(source, cache_dir, quantize=True)
    export_s = time.perf_counter() - started
    b = args.batch_size

    def torch_path(max_seq_length: int, sorted_batches: bool):
        def encode(batch: list[str]) -> np.ndarray:
            model.max_seq_length = max_seq_length
            if sorted_batches:  # sentence-transformers sorts by length within one call
                return model.encode(batch, batch_size=b, normalize_embeddings=True)
            return np.concatenate(
                [
                    model.encode(batch[i : i + b], batch_size=b, normalize_embeddings=True)
                    for i in range(0, len(batch), b)
                ]
            )

        return encode

    def onnx_path(onnx_file: Path, max_seq_length: int):
        embedder = OnnxEmbedder(onnx_file, source, max_seq_length, threads=args.threads)
        return lambda batch: embedder.encode(batch, batch_size=b)

    paths = {
        "pytorch fp32, corpus order (reference)": torch_path(256, False),
        "pytorch fp32, sorted by length": torch_path(256, True),
        "pytorch fp32, sorted, 128 tokens": torch_path(128, True),
        "onnxruntime fp32, sorted": onnx_path(onnx_fp32, 256),
        "onnxruntime int8, sorted": onnx_path(onnx_int8, 256),
        "onnxruntime int8, sorted, 128 tokens": onnx_path(onnx_int8, 128),
    }
    rows, reference = {}, None
    for name, encode in paths.items():
        load = os.getloadavg()[0]
        vectors, speed = timed(encode, texts)
        reference = vectors if reference is None else reference
        cosine = (vectors * reference).sum(axis=1)
        rows[name] = {
            "chunks_per_second": speed,
            "corpus_minutes": len(chunks) / speed / 60,
            "cosine_mean": float(cosine.mean()),
            "cosine_min": float(cosine.min()),
            "load_average": round(load, 1),
        }
        print(name, json.dumps(rows[name]))

    lines = [
        f"| path ({args.threads} thread{'s' * (args.threads > 1)}) | chunks/s | corpus ({len(chunks)} chunks) min "
        "| cosine to reference (mean / min) | load avg |",
        "|" + " --- |" * 5,
    ]
    for name, r in rows.items():
        lines.append(
            f"| {name} | {r['chunks_per_second']:.1f} | {r['corpus_minutes']:.0f} | "
            f"{r['cosine_mean']:.4f} / {r['cosine_min']:.4f} | {r['load_average']} |"
        )
    table = "\n".join(lines)
    token_counts = {
        "median": float(np.median(tokens)),
        "p95": float(np.percentile(tokens, 95)),
        "share_over_128": float((tokens > 128).mean()),
        "share_over_256": float((tokens > 256).mean()),
    }
    print(table)
    print("tokens per chunk", json.dumps(token_counts))
    report = {
        "setup": {
            "chunks": args.chunks,
            "corpus_chunks": len(chunks),
            "threads": args.threads,
            "batch_size": b,
            "seed": args.seed,
            "onnx_export_s": export_s,
            "hardware": hardware(),
        },
        "tokens_per_chunk": token_counts,
        "paths": rows,
        "table": table,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
