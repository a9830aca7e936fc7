"""LegalBench-RAG transfer: a frozen search policy on legal corpora it never saw.

For each corpus of ``benchmark.corpora`` (MAUD, ContractNLI, PrivacyQA, CUAD), the sample's documents are
indexed together with ``benchmark.distractor_docs`` CUAD contracts (so finding the document is not trivial) and
the policy (``init_from``, e.g. the CUAD GRPO checkpoint) runs one search episode per query, untrained.
Per corpus: ``<corpus>/doc@8`` (a gold source document among the documents the agent's searches returned, each
search returning the top ``harness.top_k``), ``<corpus>/searches_per_question``, and ``<corpus>/retriever_doc@8``
(the query sent straight to the retriever, the no-agent reference).
"""

from __future__ import annotations

import logging
from statistics import mean

from hydra.utils import instantiate
from omegaconf import DictConfig

from agenttune.agents.episode import run_episodes
from agenttune.benchmarks.legalbench_rag.corpus import legalbench_chunks
from agenttune.benchmarks.legalbench_rag.data import load_sample
from agenttune.benchmarks.legalbench_rag.metrics import evaluate_doc_at_k
from agenttune.config import ModelConfig
from agenttune.engines import build_engine
from agenttune.events import EventLogWriter
from agenttune.events.schema import EventKind, EventLog
from agenttune.harness.tools_harness import Question
from agenttune.pipelines.common import load_policy, typed
from agenttune.pipelines.search_agent import build_retriever, harness_factory
from agenttune.tracking.run import RunContext

log = logging.getLogger(__name__)


def returned_docs(log: EventLog) -> set[str]:
    """The documents of every chunk the episode's search results showed."""
    return {
        doc
        for event in log.events
        if event.kind == EventKind.TOOL_RESULT
        for doc in event.payload.metadata.get("doc_ids", [])
    }


def run(cfg: DictConfig, run: RunContext) -> None:
    bench = cfg.benchmark
    model, tokenizer = load_policy(cfg)
    model.eval()
    engine = build_engine(typed(cfg.model, ModelConfig), model, tokenizer)
    strategy = instantiate(cfg.strategy)
    for corpus in load_sample(bench_root(cfg), list(bench.corpora) or None):
        queries = corpus.queries[: bench.num_eval] if bench.num_eval else corpus.queries
        chunks = legalbench_chunks(
            corpus, bench.distractor_docs, bench.chunk_size, bench.chunk_overlap, bench.seed
        )
        retriever = build_retriever(cfg, chunks)
        tasks = [Question(id=q.id, question=q.query) for q in queries]
        with EventLogWriter(run.eventlog_dir / f"{corpus.name}.jsonl") as writer:
            logs = run_episodes(
                engine,
                harness_factory(cfg, retriever),
                strategy,
                tasks,
                writer=writer.write,
                source=corpus.name,
            )
        gold = {q.id: set(q.gold_files) for q in queries}
        searches = [sum(e.kind == EventKind.TOOL_CALL for e in episode.events) for episode in logs]
        metrics = {
            f"{corpus.name}/doc@8": mean(float(bool(gold[e.task_id] & returned_docs(e))) for e in logs),
            f"{corpus.name}/searches_per_question": mean(searches),
            f"{corpus.name}/retriever_doc@8": evaluate_doc_at_k(retriever, queries, k=8)["doc@8"],
            f"{corpus.name}/queries": len(queries),
            f"{corpus.name}/documents": len({c.doc_id for c in chunks}),
        }
        run.log(metrics)
        run.set_summary(metrics)
        log.info("%s: %s", corpus.name, metrics)


def bench_root(cfg: DictConfig) -> str:
    return f"{cfg.paths.data_dir}/legalbench_rag_sample"
