"""Build the CUAD question sets: single-hop clause questions and multi-hop synthesized questions.

    python scripts/build_cuad_questions.py                      # -> .cache/cuad_questions/
    python scripts/build_cuad_questions.py --out data/q --chunk-size 800 --chunk-overlap 100

Writes ``<out>/single_hop/{questions,train,validation}.jsonl`` and ``<out>/multi_hop/0N_<stage>/`` (paths,
generated, checked, balanced, split), each folder with a ``manifest.json`` of counts. The gold chunk ids
hold for the chunking given here: use the same ``chunk_size`` / ``chunk_overlap`` for the search index.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from agenttune.benchmarks.cuad.data import load_contracts
from agenttune.benchmarks.cuad.graph import TEMPLATES, build_cuad_graph
from agenttune.benchmarks.cuad.questions import build_single_hop_questions
from agenttune.rag.cache import default_cache_dir
from agenttune.rag.questions import counts, write_jsonl, write_manifest
from agenttune.rag.splits import shared_gold
from agenttune.rag.synthesis.generators import TemplateGenerator
from agenttune.rag.synthesis.pipeline import SynthesisConfig, synthesize


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=default_cache_dir() / "cuad_questions")
    parser.add_argument("--chunk-size", type=int, default=1000)
    parser.add_argument("--chunk-overlap", type=int, default=200)
    parser.add_argument("--val-fraction", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--max-per-bucket", type=int, default=200, help="multi-hop cap per (hops, difficulty)"
    )
    args = parser.parse_args()
    chunking = {"chunk_size": args.chunk_size, "chunk_overlap": args.chunk_overlap}

    started = time.perf_counter()
    contracts = load_contracts()
    single = build_single_hop_questions(contracts, val_fraction=args.val_fraction, seed=args.seed, **chunking)
    folder = args.out / "single_hop"
    write_jsonl(single, folder / "questions.jsonl")
    for split in ("train", "validation"):
        write_jsonl([q for q in single if q.split == split], folder / f"{split}.jsonl")
    write_manifest(
        folder,
        "single_hop",
        **counts(single),
        gold_quotes=sum(len(q.gold_quotes) for q in single),
        shared_gold_chunks=len(shared_gold(single)),
        **chunking,
    )
    print(f"single-hop: {len(single)} questions -> {folder}")

    graph = build_cuad_graph(contracts, **chunking)
    config = SynthesisConfig(
        max_per_bucket=args.max_per_bucket, val_fraction=args.val_fraction, seed=args.seed
    )
    multi = synthesize(graph, TEMPLATES, TemplateGenerator(TEMPLATES), args.out / "multi_hop", config)
    print(f"multi-hop: {len(multi)} questions -> {args.out / 'multi_hop'}")
    summary = {"single_hop": counts(single), "multi_hop": counts(multi), **chunking}
    summary["seconds"] = round(time.perf_counter() - started, 1)
    (args.out / "manifest.json").write_text(json.dumps(summary, indent=2))
    print(
        json.dumps(
            {
                k: {"total": v["total"], "by_split": v["by_split"]}
                for k, v in summary.items()
                if isinstance(v, dict)
            }
        )
    )


if __name__ == "__main__":
    main()
