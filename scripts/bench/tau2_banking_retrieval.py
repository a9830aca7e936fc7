"""Knowledge-base retrieval for tau2 banking_knowledge: do the backends find the documents each task relies on?

    python scripts/bench/tau2_banking_retrieval.py                       # all four backends
    python scripts/bench/tau2_banking_retrieval.py --backends sqlite_fts bm25s

For every task whose ``required_documents`` is not empty (the documents its gold trajectory relies on), the query
is the task's user scenario (what the customer calls about, as the agent first hears it). Each backend ranks the
698 documents exactly as the domain's ``KB_search`` does (chunks with the title as header, a document counted
once at its best chunk); hit@k is the share of tasks with at least one required document in the top k, recall@k
the mean share of a task's required documents in the top k. Also: index build time (a fresh temporary cache, so
a real build) and query latency p50/p95. Prints a table and writes JSON (default
``outputs/bench/tau2_banking_retrieval.json``).
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

from agenttune.benchmarks.tau2.banking.data import load_raw_tasks
from agenttune.benchmarks.tau2.banking.knowledge import KnowledgeSettings, ranked_documents, retriever
from agenttune.benchmarks.tau2.domains import load_tasks
from agenttune.benchmarks.tau2.users import scenario_text

REPO_ROOT = Path(__file__).resolve().parents[2]
KS = (1, 3, 5, 10)


def questions() -> list[tuple[str, set[str]]]:
    """(query, required documents) for each task that cites documents."""
    required = {task["id"]: set(task.get("required_documents") or []) for task in load_raw_tasks()}
    return [
        (scenario_text(task), required[task.id])
        for task in load_tasks("banking_knowledge", "base")
        if required[task.id]
    ]


def score(settings: KnowledgeSettings, asked: list[tuple[str, set[str]]]) -> dict[str, float]:
    started = time.perf_counter()
    retriever(settings)
    result: dict[str, float] = {"build_s": time.perf_counter() - started}
    latencies, ranked = [], []
    for query, _ in asked:
        started = time.perf_counter()
        ranked.append(ranked_documents(query, max(KS), settings))
        latencies.append((time.perf_counter() - started) * 1000)
    for k in KS:
        found = [len(gold & set(docs[:k])) for docs, (_, gold) in zip(ranked, asked, strict=True)]
        result[f"hit@{k}"] = statistics.fmean(n > 0 for n in found)
        result[f"recall@{k}"] = statistics.fmean(
            n / len(gold) for n, (_, gold) in zip(found, asked, strict=True)
        )
    result["latency_p50_ms"] = statistics.median(latencies)
    result["latency_p95_ms"] = statistics.quantiles(latencies, n=20)[18]
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", nargs="+", default=["sqlite_fts", "bm25s", "chroma", "hybrid"])
    parser.add_argument("--out", default=str(REPO_ROOT / "outputs" / "bench" / "tau2_banking_retrieval.json"))
    args = parser.parse_args()
    asked = questions()
    results = {}
    with tempfile.TemporaryDirectory() as cache:
        for backend in args.backends:
            results[backend] = score(KnowledgeSettings(backend=backend, cache_dir=cache), asked)
    columns = ["build_s", *(f"hit@{k}" for k in KS), "recall@5", "latency_p50_ms", "latency_p95_ms"]
    print(f"{len(asked)} tasks with required documents ({sum(len(g) for _, g in asked)} documents in all)")
    print(" | ".join(["backend", *columns]))
    for backend, row in results.items():
        print(" | ".join([backend, *(f"{row[c]:.3f}" if "@" in c else f"{row[c]:.1f}" for c in columns)]))
    hardware = {"machine": platform.machine(), "processor": platform.processor(), "cpus": os.cpu_count()}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(
        json.dumps({"tasks": len(asked), "hardware": hardware, "results": results}, indent=1)
    )
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
