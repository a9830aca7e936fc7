"""Retrieval on the full CUAD corpus, one run: the backends side by side, then the search agent against one-shot.

    python scripts/bench/retrieval.py                                   # everything, all 510 contracts
    python scripts/bench/retrieval.py --backends sqlite_fts bm25s --questions 300 --no-agent
    python scripts/bench/retrieval.py --max-docs 60                     # a sub-corpus (the report says so)

**Backends.** Every single-hop validation question (it names its contract by title and parties, and by title alone)
is sent as it is to each backend over the whole corpus: gold-chunk recall@k, hit@k, MRR@k, gold-span hit@k (a hit
shares a character with a gold quote), query latency p50/p95 (ms), index build time and size. Dense and hybrid
read their chunk embeddings from the cache (``scripts/build_embeddings.py`` fills it; missing ones are encoded) of
``--dense-model``. The hybrid fuses with the setting ``scripts/bench/fusion.py`` chose on train questions
(``--fusion``, its JSON; RRF with equal weights when the file is absent).

**Agent.** The scripted teacher (:class:`~agenttune.benchmarks.cuad.teacher.RetrievalTeacher`) plays each question
through the search harness (``search``, ``find_documents``, ``search_document``) with the default backend, under
call budgets ``--budgets``; "one-shot" is the same harness searched once with the question itself. Per question
style: gold-span hit@k of the union of the episode's searches, calls per question, answer token F1 against the
gold quote and tokens per episode (the SmolLM2 chat template with the tool schemas, as the main job renders it),
with ``--snippet-chars`` characters shown per hit (0: whole chunks).

**Multi-hop.** One-shot gold-span hit@k and evidence recall of the synthesised multi-hop validation questions,
per hop count.

Prints tables and writes JSON (default ``outputs/bench/retrieval.json``). Indexes go to ``--cache-dir`` (default the
project cache, so a second run reuses them; ``build s`` then says "reused").
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections import defaultdict
from pathlib import Path

from agenttune.agents.episode import run_episodes
from agenttune.agents.strategies import ReAct
from agenttune.benchmarks.cuad.corpus import cuad_chunks
from agenttune.benchmarks.cuad.dataset import cuad_questions
from agenttune.benchmarks.cuad.teacher import RetrievalTeacher
from agenttune.benchmarks.search import shown_spans
from agenttune.config import ModelConfig
from agenttune.engines.scripted import ScriptedEngine
from agenttune.engines.templates import encode, render
from agenttune.events.projections.evaluator import evaluator_input
from agenttune.events.projections.messages import chat_messages
from agenttune.harness.search_corpus import SEARCH_TOOLS, SearchCorpusHarness
from agenttune.rag import spans
from agenttune.rag.backends import BACKENDS, make_retriever
from agenttune.rag.cache import default_cache_dir
from agenttune.rag.catalog import DocumentCatalog
from agenttune.rag.questions import QuestionRecord
from agenttune.rag.retriever import Retriever
from agenttune.rewards.answer import extract_answer, token_f1
from agenttune.tracking.run import hardware

REPO_ROOT = Path(__file__).resolve().parents[2]
STYLES = ("title_parties", "title")


def mean(values) -> float:
    values = list(values)
    return statistics.fmean(values) if values else float("nan")


def one_shot(retriever: Retriever, questions: list[QuestionRecord], k: int) -> dict[str, float]:
    """Each question sent as it is: recall@k, hit@k, MRR@k and gold-span hit@k of its top k, latency p50/p95."""
    rows, latencies = [], []
    for q in questions:
        started = time.perf_counter()
        hits = retriever.search(q.question, k)
        latencies.append((time.perf_counter() - started) * 1000)
        ranked = [h.chunk_id for h in hits]
        gold = set(q.gold_chunk_ids)
        rows.append(
            (
                len(gold & set(ranked)) / len(gold),
                float(bool(gold & set(ranked))),
                next((1 / rank for rank, c in enumerate(ranked, start=1) if c in gold), 0.0),
                float(spans.touches(q.gold_spans, [(h.doc_id, h.start, h.end) for h in hits])),
            )
        )
    return {
        f"recall@{k}": mean(r[0] for r in rows),
        f"hit@{k}": mean(r[1] for r in rows),
        f"mrr@{k}": mean(r[2] for r in rows),
        f"span_hit@{k}": mean(r[3] for r in rows),
        "latency_p50_ms": statistics.median(latencies),
        "latency_p95_ms": statistics.quantiles(latencies, n=20)[18],
    }


def distinct_rounds(questions: list[QuestionRecord]) -> list[list[QuestionRecord]]:
    """``questions`` in rounds whose texts all differ: the teacher knows a question by its text, and title-only
    questions about contracts sharing a title read alike."""
    rounds: dict[int, list[QuestionRecord]] = defaultdict(list)
    seen: dict[str, int] = defaultdict(int)
    for q in questions:
        rounds[seen[q.question]].append(q)
        seen[q.question] += 1
    return list(rounds.values())


def episodes(
    retriever: Retriever,
    catalog: DocumentCatalog,
    questions: list[QuestionRecord],
    teacher: dict,
    k: int,
    snippet_chars: int,
    tokenizer,
) -> dict[str, float]:
    """The teacher's episodes (``teacher``: its keyword arguments), ``k`` hits a search: union gold-span hit,
    calls, answer F1 and tokens per episode."""
    max_calls = teacher["max_calls"]

    def harness() -> SearchCorpusHarness:
        return SearchCorpusHarness(
            retriever, top_k=k, max_steps=max_calls + 1, snippet_chars=snippet_chars, catalog=catalog,
            tools=SEARCH_TOOLS,
        )  # fmt: skip

    schemas = harness().tool_schemas()
    played = []
    for round_ in distinct_rounds(questions):
        engine = ScriptedEngine(RetrievalTeacher(round_, **teacher))
        logs = run_episodes(engine, harness, ReAct(max_turns=max_calls + 1), round_)
        played += zip(logs, round_, strict=True)
    rows = []
    for log, q in played:
        record = evaluator_input(log)
        answer = extract_answer(record["final_answer"])
        text = render(tokenizer, chat_messages(log), schemas, False)
        rows.append(
            (
                float(spans.touches(q.gold_spans, shown_spans(log))),
                len(record["tool_calls"]),
                token_f1(answer, [q.answer, *q.answer_aliases]),
                len(encode(tokenizer, text)),
            )
        )
    return {
        "span_hit": mean(r[0] for r in rows),
        "calls_per_question": mean(r[1] for r in rows),
        "answer_f1": mean(r[2] for r in rows),
        "tokens_per_episode": mean(r[3] for r in rows),
        "tokens_p95": statistics.quantiles([r[3] for r in rows], n=20)[18],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--backends", nargs="*", default=["sqlite_fts", "bm25s", "chroma", "hybrid"], choices=sorted(BACKENDS)
    )
    parser.add_argument(
        "--dense-model",
        default="all-MiniLM-L6-v2-onnx-int8",
        help="chroma/hybrid: all-MiniLM-L6-v2-onnx-int8, all-MiniLM-L6-v2 (PyTorch) or all-MiniLM-L6-v2-static",
    )
    parser.add_argument(
        "--fusion",
        type=Path,
        default=REPO_ROOT / "outputs" / "bench" / "fusion.json",
        help="hybrid: the fusion chosen on train questions by scripts/bench/fusion.py",
    )
    parser.add_argument(
        "--max-docs", type=int, default=None, help="contracts in the corpus (default: all 510)"
    )
    parser.add_argument(
        "--questions", type=int, default=None, help="validation questions asked (default: all)"
    )
    parser.add_argument("--k", type=int, default=8)
    parser.add_argument("--chunk-size", type=int, default=1200)
    parser.add_argument("--chunk-overlap", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--agent", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--agent-backend", default="bm25s", choices=sorted(BACKENDS))
    parser.add_argument("--budgets", type=int, nargs="+", default=[2, 5], help="the teacher's call budgets")
    parser.add_argument("--agent-top-k", type=int, default=None, help="hits per agent search (default: --k)")
    parser.add_argument("--snippet-chars", type=int, nargs="+", default=[0, 160])
    parser.add_argument("--multi-hop", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--cache-dir", type=Path, default=None, help="default: the project cache")
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "outputs" / "bench" / "retrieval.json")
    args = parser.parse_args()

    chunking = {"chunk_size": args.chunk_size, "chunk_overlap": args.chunk_overlap}
    questions = {
        style: cuad_questions("single_hop", "validation", limit=args.questions, seed=args.seed, style=style, **chunking)
        for style in STYLES
    }  # fmt: skip
    needed = [d for q in questions["title_parties"] for d in q.doc_ids]
    chunks = cuad_chunks(args.max_docs, needed, seed=args.seed, **chunking)
    docs = len({c.doc_id for c in chunks})
    print(
        f"{len(questions['title_parties'])} questions a style; corpus {docs} contracts, {len(chunks)} chunks"
    )
    cache_dir = args.cache_dir or default_cache_dir()
    load = [round(os.getloadavg()[0], 1)]

    backends, retrievers = {}, {}
    fusion = json.loads(args.fusion.read_text())["best"]["params"] if args.fusion.exists() else {}
    dense = {"chroma": {"model": args.dense_model}, "hybrid": {"dense_model": args.dense_model, **fusion}}
    for backend in args.backends:
        retriever = make_retriever(backend, cache_dir=cache_dir, k=args.k, **dense.get(backend, {}))
        retriever.build(chunks)
        parts = retriever.retrievers.values() if backend == "hybrid" else [retriever]
        retrievers[backend] = retriever
        backends[backend] = {style: one_shot(retriever, questions[style], args.k) for style in STYLES} | {
            "build_s": retriever.last_build_seconds,
            "reused_index": all(r.last_build_reused for r in parts),
            "index_mb": retriever.index_size_bytes() / 1e6,
        }
        print(backend, json.dumps(backends[backend]))
        load.append(round(os.getloadavg()[0], 1))

    agent = {}
    if args.agent:
        from agenttune.models.loading import load_tokenizer

        tokenizer = load_tokenizer(
            ModelConfig(name="smollm2_135m", path="embedded:smollm2_135m", chat_template="qwen2_5"), cache_dir
        )
        retriever = retrievers.get(args.agent_backend) or make_retriever(
            args.agent_backend, cache_dir=cache_dir, k=args.k
        ).build(chunks)
        catalog = DocumentCatalog(chunks)
        agent_k = args.agent_top_k or args.k
        for snippet in args.snippet_chars:
            for style in STYLES:
                runs = {"one-shot": {"query_styles": ("question",), "max_calls": 1}}
                runs |= {f"teacher, {b} calls": {"max_calls": b} for b in args.budgets}
                for name, teacher in runs.items():
                    key = f"{snippet} | {style} | {name}"
                    agent[key] = episodes(
                        retriever, catalog, questions[style], teacher, agent_k, snippet, tokenizer
                    )
                    print(key, json.dumps(agent[key]))
        load.append(round(os.getloadavg()[0], 1))

    multi_hop = {}
    if args.multi_hop:
        records = cuad_questions("multi_hop", "validation", seed=args.seed, **chunking)
        retriever = retrievers.get(args.agent_backend) or make_retriever(
            args.agent_backend, cache_dir=cache_dir, k=args.k
        ).build(chunks)
        by_hops = defaultdict(list)
        for q in records:
            hits = retriever.search(q.question, args.k)
            shown = [(h.doc_id, h.start, h.end) for h in hits]
            by_hops[q.hops].append(
                (float(spans.touches(q.gold_spans, shown)), spans.recall(q.gold_spans, shown))
            )
        multi_hop = {
            f"{hops} hops": {"questions": len(rows), f"span_hit@{args.k}": mean(r[0] for r in rows),
                             f"evidence_recall@{args.k}": mean(r[1] for r in rows)}
            for hops, rows in sorted(by_hops.items())
        }  # fmt: skip
        print("multi-hop", json.dumps(multi_hop))

    k = args.k
    lines = [
        f"| backend | recall@{k} | hit@{k} | MRR@{k} | span hit@{k} | span hit@{k}, title only | p50 ms | p95 ms "
        "| build s | index MB |",
        "|" + " --- |" * 10,
    ]
    for name, r in backends.items():
        tp, t = r["title_parties"], r["title"]
        build = f"{r['build_s']:.1f}" + (" (reused)" if r["reused_index"] else "")
        lines.append(
            f"| {name} | {tp[f'recall@{k}']:.3f} | {tp[f'hit@{k}']:.3f} | {tp[f'mrr@{k}']:.3f} | "
            f"{tp[f'span_hit@{k}']:.3f} | {t[f'span_hit@{k}']:.3f} | {tp['latency_p50_ms']:.2f} | "
            f"{tp['latency_p95_ms']:.2f} | {build} | {r['index_mb']:.1f} |"
        )
    agent_k = args.agent_top_k or k
    lines += ["", f"| snippet chars | question style | policy | span hit@{agent_k} (union) | calls | answer F1 | "
              "tokens (mean / p95) |", "|" + " --- |" * 7]  # fmt: skip
    for name, r in agent.items():
        lines.append(
            f"| {name} | {r['span_hit']:.3f} | {r['calls_per_question']:.2f} | {r['answer_f1']:.3f} | "
            f"{r['tokens_per_episode']:.0f} / {r['tokens_p95']:.0f} |"
        )
    table = "\n".join(lines)
    print(table)
    report = {
        "setup": {
            "questions_per_style": len(questions["title_parties"]),
            "corpus_docs": docs,
            "full_corpus": args.max_docs is None,
            "chunks": len(chunks),
            "k": k,
            **chunking,
            "seed": args.seed,
            "agent_backend": args.agent_backend,
            "agent_top_k": args.agent_top_k or k,
            "dense_model": args.dense_model,
            "hybrid_fusion": fusion,
            "hardware": hardware(),
            "load_average_during": load,
        },
        "backends": backends,
        "agent": agent,
        "multi_hop": multi_hop,
        "table": table,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
