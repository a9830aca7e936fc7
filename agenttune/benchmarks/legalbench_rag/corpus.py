"""A LegalBench-RAG search corpus: the set's own documents plus CUAD contracts as distractors.

The sample's knowledge base is small (2 to 6 documents a corpus), which makes retrieval trivial; mixing in
``n_distractors`` CUAD contracts (never one of the set's own documents) makes Doc@k informative.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from agenttune.benchmarks.cuad.corpus import select_doc_ids
from agenttune.benchmarks.cuad.data import filename_key, load_contracts
from agenttune.benchmarks.legalbench_rag.data import LegalBenchSet
from agenttune.rag.chunking import Chunk, chunk_documents

DISTRACTOR_PREFIX = "cuad_distractor/"


def documents_with_distractors(bench: LegalBenchSet, n_distractors: int = 0, seed: int = 0) -> dict[str, str]:
    """The set's documents followed by ``n_distractors`` CUAD contracts chosen by a seeded hash."""
    own = {filename_key(PurePosixPath(doc_id).name) for doc_id in bench.documents}
    candidates = {c.doc_id: c.text for c in load_contracts() if filename_key(c.doc_id) not in own}
    picked = select_doc_ids(list(candidates), max_docs=n_distractors, seed=seed) if n_distractors else []
    return {**bench.documents, **{DISTRACTOR_PREFIX + d: candidates[d] for d in picked}}


def legalbench_chunks(
    bench: LegalBenchSet,
    n_distractors: int = 0,
    chunk_size: int = 1000,
    chunk_overlap: int = 200,
    seed: int = 0,
) -> list[Chunk]:
    """Chunks of :func:`documents_with_distractors`."""
    return chunk_documents(documents_with_distractors(bench, n_distractors, seed), chunk_size, chunk_overlap)
